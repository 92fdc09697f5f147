/**
 * Reading OAuth parameters from a query or a body. OAuth parameters are single-valued (RFC 6749
 * section 3.1: "Request and response parameters MUST NOT be included more than once"), so a
 * repeated or non-string value is reported rather than silently picking one.
 */
export type RawParams = Record<string, unknown>;

export interface ReadParams {
  /** Single string values by name (absent when not sent or not a single string). */
  values: Record<string, string | undefined>;
  /** Names sent more than once or with a value that is not a string. */
  malformed: string[];
}

/** Reads `names` from `raw` (a parsed query or body). */
export function readParams(raw: RawParams | undefined, names: readonly string[]): ReadParams {
  const values: Record<string, string | undefined> = {};
  const malformed: string[] = [];
  for (const name of names) {
    const value = raw?.[name];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') values[name] = value;
    else malformed.push(name);
  }
  return { values, malformed };
}

/** "a, b and c" for messages. */
export function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
