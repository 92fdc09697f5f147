/**
 * The ASCII name a label gives (docs/decisions.md, "Name of a created attribute"). A label may be
 * written in any script; the name must stay `a-z`, `0-9` and `_`, because clients put it in URLs,
 * filters and scopes. So:
 *
 * 1. lower-case the label, take it apart (NFKD) and drop the combining marks: "Café" -> "cafe";
 * 2. spell out the letters of a small table (Latin letters NFKD keeps whole, Greek, Cyrillic);
 * 3. turn each run of characters that are no letter or digit into `_`, and trim it.
 *
 * When every letter and digit became ASCII, that is the name. Otherwise (日本語, "Tee 茶") the name is
 * `custom_<n>`, `n` a number read from a hash of step 3's result: the same label (as the same
 * Latin label) always gives the same name, so creating it twice fails `already_exists` as before,
 * and no letter is dropped silently (which would give "Tee 茶" and "Tee 紅茶" the one name `tee`).
 */
import { createHash } from 'node:crypto';

/** Letters NFKD leaves whole and their usual Latin spelling. */
const LATIN_LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h', ŋ: 'ng' };

/** Greek, lower case without accents (ELOT 743, simplified). */
const GREEK_LETTERS: Record<string, string> = {
  α: 'a', β: 'v', γ: 'g', δ: 'd', ε: 'e', ζ: 'z', η: 'i', θ: 'th', ι: 'i', κ: 'k', λ: 'l', μ: 'm', ν: 'n', ξ: 'x',
  ο: 'o', π: 'p', ρ: 'r', σ: 's', ς: 's', τ: 't', υ: 'y', φ: 'f', χ: 'ch', ψ: 'ps', ω: 'o',
}; // prettier-ignore

/** Cyrillic, lower case without diacritics (Russian and Ukrainian letters, a simplified common romanisation). */
const CYRILLIC_LETTERS: Record<string, string> = {
  а: 'a', б: 'b', в: 'v', г: 'g', ґ: 'g', д: 'd', е: 'e', є: 'ye', ж: 'zh', з: 'z', и: 'i', і: 'i', к: 'k', л: 'l',
  м: 'm', н: 'n', о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'kh', ц: 'ts', ч: 'ch', ш: 'sh',
  щ: 'shch', ъ: '', ы: 'y', ь: '', э: 'e', ю: 'yu', я: 'ya',
}; // prettier-ignore

const SPELLED: Readonly<Record<string, string>> = { ...LATIN_LETTERS, ...GREEK_LETTERS, ...CYRILLIC_LETTERS };

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Whether a label has something to name it by: a letter or digit in any script. */
export function hasLetterOrDigit(label: string): boolean {
  return LETTER_OR_DIGIT.test(label);
}

/** Steps 1 to 3: the label's letters and digits, the ones the table knows spelled out, joined by `_`. */
function spelledOut(label: string): string {
  const bare = label.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
  return Array.from(bare, (char) => SPELLED[char] ?? char)
    .join('')
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * Steps 1 to 3 for a label that is ASCII once lower-cased (the usual one), which they reduce to: its
 * runs of `a-z` and `0-9`, lower-cased, joined by `_`. Lower-cased, the general rule's NFKD leaves
 * ASCII as it is, no ASCII character is a combining mark or in the table, and the ASCII letters
 * and digits are `a-z` and `0-9`; so the name is the general rule's (test/domain/label-name.test.ts
 * holds them equal), taken as slices of the label in one pass instead of NFKD, a character array
 * and four Unicode regular expressions (docs/request-path.md, "Issue 35, fourth stop"). Undefined
 * at the first character outside ASCII: the general rule names the label.
 */
function asciiName(label: string): string | undefined {
  const lower = label.toLowerCase();
  let name = '';
  let start = -1; // where the current run of letters and digits began; -1 between runs
  for (let i = 0; i <= lower.length; i++) {
    const code = i < lower.length ? lower.charCodeAt(i) : 0x20; // a space after the end closes the last run
    if (code > 0x7f) return undefined;
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      name = name === '' ? lower.slice(start, i) : `${name}_${lower.slice(start, i)}`;
      start = -1;
    }
  }
  return name;
}

/**
 * The name a label gives, before clash suffixes: the spelled-out label when it is all ASCII, else
 * `custom_<n>`; '' when the label has no letter or digit at all.
 */
export function nameFromLabel(label: string): string {
  return asciiName(label) ?? spelledName(label);
}

/** nameFromLabel by the general rule, for a label in any script. */
export function spelledName(label: string): string {
  if (!hasLetterOrDigit(label)) return '';
  const spelled = spelledOut(label);
  if (/^[a-z0-9_]+$/.test(spelled)) return spelled;
  // Fewer than 2^32 values: a clash between two labels of one person is left to chance (about one in
  // a million for a hundred such labels), and fails as any taken name does.
  const digest = createHash('sha256')
    .update(spelled || label)
    .digest();
  return `custom_${digest.readUInt32BE(0)}`;
}
