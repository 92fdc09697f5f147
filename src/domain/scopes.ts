/**
 * Scopes and what they make visible. A read scope shows a group's attributes and values; a write
 * scope lets a client own, create and write them; manual_read / manual_write cover manually tracked
 * attributes in any group. Version 1's `read` and `read+write` stand for every read (and write) scope.
 */
import { GROUP_NAMES } from '../db/catalogue';

export type GroupName = (typeof GROUP_NAMES)[number];

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
