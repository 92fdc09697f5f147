/**
 * Where an attribute's page is. `/data/<name>` (docs/pages.md, "Addresses"), except for a name that is
 * also one of the data pages' own words (a custom attribute labelled "Track" is named `track`):
 * those are always at `/data/attributes/<name>`, which works for every attribute
 * (docs/pages.md, "Addresses").
 */
export const DATA_PAGE_WORDS: ReadonlySet<string> = new Set(['track', 'patterns', 'values', 'day', 'attributes', 'insights', 'pair']);

export function attributeHref(name: string): string {
  return DATA_PAGE_WORDS.has(name) ? `/data/attributes/${encodeURIComponent(name)}` : `/data/${encodeURIComponent(name)}`;
}

/** The page drawing two attributes together. */
export function pairHref(first: string, second: string): string {
  return `/data/pair/${encodeURIComponent(first)}/${encodeURIComponent(second)}`;
}
