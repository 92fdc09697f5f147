/**
 * The services able to handle an attribute (docs/decisions.md, "Values and writes": which
 * services can handle an attribute): the services that acquired it for the person before (an `attribute_services` row)
 * and are still connected to the person, i.e. hold a live token (apps-and-grants/tokens.ts);
 * Daybook's built-in services (manual tracking, demo data) need no token, so they always are.
 * They are the API's `available_services`, the candidates of the settings page, and the services
 * a released attribute passes to.
 */
import { raw, sql, type Sql } from '../../db/sql';
import { liveToken } from '../apps-and-grants/tokens';

/**
 * The service of the `attribute_services` row `s`, whose `oauth_clients` row is `c`, is able to
 * handle its attribute at `now` (the service's clock).
 */
export function ableToHandle(s: Sql, c: Sql, now: Date): Sql {
  return sql`(${c}.builtin or exists (
    select 1 from tokens t where t.user_id = ${s}.user_id and t.client_pk = ${s}.client_pk and ${liveToken(raw('t'), now)}))`;
}

/**
 * When the service of `s` last connected to the person: the newest of its live tokens (null for a
 * built-in service without one). A released attribute passes to the most recently connected.
 */
export function lastConnected(s: Sql, now: Date): Sql {
  return sql`(select max(t.created_at) from tokens t where t.user_id = ${s}.user_id and t.client_pk = ${s}.client_pk and ${liveToken(raw('t'), now)})`;
}

/**
 * `available_services` of the attribute row `a` as a JSON array of Service objects, earliest
 * acquisition first. Written compact (no space after `:` or `,`), as `JSON.stringify` writes it,
 * so that an answer can carry the text as it is (attributes.ts, `attributeLaterals`); json_agg and
 * json_build_object would space it.
 */
export function availableServices(a: Sql, now: Date): Sql {
  return sql`coalesce((
       select ('[' || string_agg(row_to_json(service)::text, ',' order by s.acquired_at, c.client_id) || ']')::json
         from attribute_services s join oauth_clients c on c.id = s.client_pk
        cross join lateral (select c.client_id as name, c.name as label) as service
        where s.user_id = ${a}.user_id and s.attribute_id = ${a}.id and ${ableToHandle(raw('s'), raw('c'), now)}
     ), '[]'::json)`;
}
