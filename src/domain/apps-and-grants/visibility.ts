/**
 * Which of a person's attributes a principal may see (docs/decisions.md, "Visibility"). Two rules:
 * - values (with-values, values, version 1's value reads) and the owned list: the groups its
 *   scopes may read or write, plus manual attributes in any group with `manual_read` or
 *   `manual_write` (the v2 document, "Scopes and what a token sees": a service reads back what it writes);
 * - the attribute list and derived data, which that section limits to read scopes: the groups it may
 *   read, plus manual attributes with `manual_read`.
 * Templates are never filtered. Checks use the attribute's current group, so an attribute that
 * moves group follows the new group's scopes. Simple tokens and sessions carry every read scope.
 */
import type { Knex } from 'knex';
import { accessFor } from './scopes';
import { knexRaw, raw, sql, type Sql } from '../../db/sql';

export interface Visibility {
  /** Groups whose attributes are visible. */
  readonly groups: readonly string[];
  /** Whether manual attributes are visible whatever their group. */
  readonly manual: boolean;
}

/**
 * Each rule's answer for a set of scopes already seen: a remembered credential hands every request
 * the same principal, and so the same scopes object (recent-credentials.ts), and working the rule
 * out again was about 1 % of a with-values request's own CPU. Scopes are never changed in place (a
 * new grant is a new token, read into a new principal), and the answers are read-only.
 */
function remembered(rule: (scopes: Iterable<string>) => Visibility): (scopes: Iterable<string>) => Visibility {
  const answers = new WeakMap<object, Visibility>();
  return (scopes) => {
    const known = answers.get(scopes);
    if (known) return known;
    const computed = rule(scopes);
    const answer = Object.freeze({ ...computed, groups: Object.freeze(computed.groups) });
    answers.set(scopes, answer);
    return answer;
  };
}

/** What `scopes` may read: `/attributes/` and the derived data (averages, correlations, insights). */
export const readVisibility = remembered((scopes) => {
  const access = accessFor(scopes);
  return { groups: [...access.readableGroups], manual: access.manualRead };
});

/**
 * What `scopes` may see of values and in the owned list: groups readable or writable, manual
 * attributes with either manual scope.
 */
export const readOrWriteVisibility = remembered((scopes) => {
  const access = accessFor(scopes);
  return {
    groups: [...new Set([...access.readableGroups, ...access.writableGroups])],
    manual: access.manualRead || access.manualWrite,
  };
});

/** The owned list follows the values rule: a service sees what it may write even without the read scope. */
export function ownedVisibility(scopes: Iterable<string>): Visibility {
  return readOrWriteVisibility(scopes);
}

/** The same rule for one attribute already loaded (for paths that fetch before they check). */
export function isVisible(visibility: Visibility, attribute: { group_name: string; manual: boolean }): boolean {
  return visibility.groups.includes(attribute.group_name) || (visibility.manual && attribute.manual);
}

/** The same rule in SQL: the attribute row `a` (a table alias, `raw('a')`) is visible. */
export function visibleTo(visibility: Visibility, a: Sql): Sql {
  return sql`(${a}.group_name = any(${[...visibility.groups]}::text[]) or (${visibility.manual}::boolean and ${a}.manual))`;
}

/** Restricts a knex query over `attributes as <alias>` to the visible ones (`visibleTo`; an empty scope list matches nothing). */
export function whereVisible(query: Knex.QueryBuilder, visibility: Visibility, alias = 'a'): Knex.QueryBuilder {
  return query.whereRaw(...knexRaw(visibleTo(visibility, raw(alias))));
}
