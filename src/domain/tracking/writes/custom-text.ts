/**
 * The day's `custom` text and its one length rule (docs/decisions.md, "Custom tags"): at most 250
 * characters, made to fit by dropping whole tags, the oldest (first) first; a single tag longer
 * than that is cut. The same rule applies to the text the tags make (custom-tags.ts) and to a
 * text written directly to `custom` (value-rules.ts), which is read as tags separated by ", ".
 */
export const CUSTOM_STRING_TEMPLATE = 'custom';
export const CUSTOM_STRING_MAX_LENGTH = 250;
const SEPARATOR = ', ';

/** Joins the labels, oldest first, dropping the oldest until the text fits. */
export function fitLabels(labels: string[]): string {
  const kept = [...labels];
  while (kept.length > 1 && kept.join(SEPARATOR).length > CUSTOM_STRING_MAX_LENGTH) kept.shift();
  const text = kept.join(SEPARATOR);
  return text.length > CUSTOM_STRING_MAX_LENGTH ? text.slice(0, CUSTOM_STRING_MAX_LENGTH) : text;
}

/** A `custom` text as written, kept to the limit by the same rule (unchanged when it fits). */
export function fitCustomText(text: string): string {
  return text.length <= CUSTOM_STRING_MAX_LENGTH ? text : fitLabels(text.split(SEPARATOR));
}
