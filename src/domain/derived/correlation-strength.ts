/** `strong=true` on the correlation lists, and the strength words: |r| at least this is strong (docs/decisions.md). */
export const STRONG_R = 0.4;
