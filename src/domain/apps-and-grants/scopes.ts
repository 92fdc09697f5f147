/**
 * Scopes and what they make visible. A read scope shows a group's attributes and values; a write
 * scope lets a client own, create and write them; manual_read / manual_write cover manually tracked
 * attributes in any group. Version 1's `read` and `read+write` stand for every read (and write) scope.
 */
import { GROUP_NAMES, GROUPS } from '../../db/catalogue-groups';

export const READ_SCOPES: readonly string[] = [...GROUP_NAMES.map((group) => `${group}_read`), 'manual_read'];
export const WRITE_SCOPES: readonly string[] = [...GROUP_NAMES.map((group) => `${group}_write`), 'manual_write'];
/** Every scope name a client may ask for: the 34 of version 2 and version 1's two. */
export const ALL_SCOPE_NAMES: readonly string[] = [...READ_SCOPES, ...WRITE_SCOPES, 'read', 'read+write'];

/** Replaces version 1's scopes by the version 2 scopes they stand for; drops duplicates. */
export function expandScopes(scopes: Iterable<string>): Set<string> {
  const expanded = new Set<string>();
  for (const scope of scopes) {
    if (scope === 'read') READ_SCOPES.forEach((s) => expanded.add(s));
    else if (scope === 'read+write') [...READ_SCOPES, ...WRITE_SCOPES].forEach((s) => expanded.add(s));
    else expanded.add(scope);
  }
  return expanded;
}

/** What a principal's scopes allow, in the terms the visibility rules need. */
export interface Access {
  readableGroups: Set<string>;
  writableGroups: Set<string>;
  manualRead: boolean;
  manualWrite: boolean;
}

export function accessFor(scopes: Iterable<string>): Access {
  const expanded = expandScopes(scopes);
  return {
    readableGroups: new Set(GROUP_NAMES.filter((group) => expanded.has(`${group}_read`))),
    writableGroups: new Set(GROUP_NAMES.filter((group) => expanded.has(`${group}_write`))),
    manualRead: expanded.has('manual_read'),
    manualWrite: expanded.has('manual_write'),
  };
}

/** The 34 version 2 scope names, read scopes first (the order pages list them in). */
export const V2_SCOPE_NAMES: readonly string[] = [...READ_SCOPES, ...WRITE_SCOPES];

/** What a requested scope string turned into: known scope names (deduplicated, in order) and unknown words. */
export interface ParsedScopes {
  scopes: string[];
  unknown: string[];
}

/**
 * Parses a scope parameter: names separated by spaces or plus signs (docs/decisions.md, "Credentials and scopes"). Version 1's
 * `read+write` arrives decoded as `read write` (or `read+write` when the plus was escaped): the
 * words `read` and `write` together stand for it; `write` alone is unknown.
 */
export function parseScopes(raw: string): ParsedScopes {
  const words = raw.split(/[ +]+/).filter(Boolean);
  const hasReadWrite = words.includes('read') && words.includes('write');
  const scopes: string[] = [];
  const unknown: string[] = [];
  for (const word of words) {
    let scope = word;
    if (hasReadWrite && (word === 'read' || word === 'write')) scope = 'read+write';
    if (!ALL_SCOPE_NAMES.includes(scope)) {
      if (!unknown.includes(word)) unknown.push(word);
    } else if (!scopes.includes(scope)) {
      scopes.push(scope);
    }
  }
  return { scopes, unknown };
}

/** The `scope` of a token response: space-separated, `read+write` spelt `read write` as clients send it. */
export function formatScopes(scopes: readonly string[]): string {
  return scopes.map((scope) => (scope === 'read+write' ? 'read write' : scope)).join(' ');
}

/** Scopes of `requested` (expanded) that `granted` (expanded) does not cover: empty when it only narrows. */
export function scopesBeyond(requested: Iterable<string>, granted: Iterable<string>): string[] {
  const allowed = expandScopes(granted);
  return [...expandScopes(requested)].filter((scope) => !allowed.has(scope));
}

const GROUP_LABEL = new Map<string, string>(GROUPS.map((group) => [group.name, group.label]));

/** A scope in plain words, for the consent and app pages. */
export function describeScope(scope: string): string {
  if (scope === 'read') return 'Read all your data, in every group';
  if (scope === 'read+write') return 'Read all your data and add or change it, in every group';
  if (scope === 'manual_read') return 'Read the attributes you track by hand, in any group';
  if (scope === 'manual_write') return 'Add and change the attributes you track by hand, in any group';
  const match = /^([a-z]+)_(read|write)$/.exec(scope);
  const label = match ? GROUP_LABEL.get(match[1]) : undefined;
  if (!match || !label) return scope;
  const words = label.toLowerCase();
  return match[2] === 'read' ? `Read your ${words} data` : `Add, own and change your ${words} data`;
}
