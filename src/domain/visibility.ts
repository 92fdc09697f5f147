/**
 * Which of a person's attributes a principal may see (DESIGN, "Visibility"): the attributes of the
 * groups its scopes may read, plus manual attributes in any group with `manual_read`. The owned list
 * also counts the groups it may write (a service sees what it may write even without the read scope).
 * Templates are never filtered. Checks use the attribute's current group, so an attribute that
 * moves group follows the new group's scopes. Simple tokens and sessions carry every read scope.
 */
import type { Knex } from 'knex';
import { accessFor } from './scopes';

export interface Visibility {
  /** Groups whose attributes are visible. */
  readonly groups: readonly string[];
  /** Whether manual attributes are visible whatever their group. */
  readonly manual: boolean;
}

/** What `scopes` may read: attributes, with-values, values and the derived data. */
export function readVisibility(scopes: Iterable<string>): Visibility {
  const access = accessFor(scopes);
  return { groups: [...access.readableGroups], manual: access.manualRead };
}

/** What `scopes` may see in the owned list: groups readable or writable, manual with either manual scope. */
export function ownedVisibility(scopes: Iterable<string>): Visibility {
  const access = accessFor(scopes);
  return {
    groups: [...new Set([...access.readableGroups, ...access.writableGroups])],
    manual: access.manualRead || access.manualWrite,
  };
}

/** The same rule for one attribute already loaded (for paths that fetch before they check). */
export function isVisible(visibility: Visibility, attribute: { group_name: string; manual: boolean }): boolean {
  return visibility.groups.includes(attribute.group_name) || (visibility.manual && attribute.manual);
}

/** Restricts a query over `attributes as <alias>` to the visible ones (an empty scope list matches nothing). */
export function whereVisible(query: Knex.QueryBuilder, visibility: Visibility, alias = 'a'): Knex.QueryBuilder {
  return query.where((visible) => {
    visible.whereIn(`${alias}.group_name`, [...visibility.groups]);
    if (visibility.manual) visible.orWhere(`${alias}.manual`, true);
  });
}
