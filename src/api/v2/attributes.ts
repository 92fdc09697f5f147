/**
 * Handlers of the v2 `Attributes` tag: templates, attributes, with-values, values and owned. They
 * parse the query (already validated against the document) and shape the envelope; the rules
 * (visibility, filters, order, value typing) live in the domain modules they call.
 */
import type { Context as ApiContext } from 'openapi-backend';
import type Koa from 'koa';
import type { operations } from '../../../generated/types/v2';
import type { Deps } from '../../deps';
import type { Principal } from '../../domain/principal';
import { listAttributes, listAttributesWithValues, type AttributeFilters } from '../../domain/attributes';
import { listTemplates } from '../../domain/templates';
import { listValues } from '../../domain/values';
import { ownedVisibility, readOrWriteVisibility, readVisibility } from '../../domain/visibility';
import { FIRST_DATE, LAST_DATE, isSupportedDate, principalToday } from '../../domain/time';
import { badRequest } from '../../http/errors';
import { envelope, paging } from '../../http/paging';
import { queryFlag, queryInt, queryList, queryString } from '../../http/query';

type Ok<Op extends keyof operations> = operations[Op] extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;

/** A comma-separated list; sent empty (`groups=`) it is the same as not sent. */
function names(c: ApiContext, name: string): string[] | undefined {
  const list = queryList(c, name);
  return list && list.length > 0 ? list : undefined;
}

/** `manual` is three-state: true only manual, false no manual, absent both. */
function manualFilter(c: ApiContext): boolean | undefined {
  return queryString(c, 'manual') === undefined ? undefined : queryFlag(c, 'manual');
}

/**
 * `date_max` when sent, else the person's today. The document's `format: date` already refuses
 * impossible dates such as 2026-02-30; year 0000 passes that check but is no date Postgres knows.
 */
async function dateMax(deps: Deps, c: ApiContext, principal: Principal): Promise<string> {
  const sent = queryString(c, 'date_max');
  if (sent === undefined) return principalToday(deps.db, principal, deps.now());
  if (!isSupportedDate(sent)) {
    const message = `must be a date from ${FIRST_DATE} to ${LAST_DATE}`;
    throw badRequest(`Invalid query parameter date_max: ${message}.`, [{ in: 'query', name: 'date_max', message }]);
  }
  return sent;
}

/** The filters /attributes/ and /attributes/owned/ share. */
function listFilters(c: ApiContext): AttributeFilters {
  return {
    groups: names(c, 'groups'),
    names: names(c, 'attributes'),
    excludeCustom: queryFlag(c, 'exclude_custom'),
    manual: manualFilter(c),
    includeInactive: queryFlag(c, 'include_inactive'),
    includeLowPriority: queryFlag(c, 'include_low_priority'),
  };
}

export function attributesHandlers(deps: Deps) {
  return {
    /** The catalogue; never filtered by scope. */
    async listAttributeTemplates(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const p = paging(c);
      const page = await listTemplates(deps.db, { groups: names(c, 'groups'), includeLowPriority: queryFlag(c, 'include_low_priority'), page: p });
      const body: Ok<'listAttributeTemplates'> = envelope(ctx, p, page.count, page.results);
      ctx.body = body;
    },

    /** The person's attributes the token may read; `owned=true` narrows to the calling client's. */
    async listAttributes(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const principal = ctx.state.principal as Principal;
      const p = paging(c);
      const filters = listFilters(c);
      // A simple token or a session belongs to no client, so it owns nothing.
      if (queryFlag(c, 'owned')) filters.ownerClientPk = principal.clientPk ?? null;
      const page = await listAttributes(deps.db, {
        userId: principal.userId,
        visibility: readVisibility(principal.scopes),
        filters,
        page: p,
        now: deps.now(),
      });
      const body: Ok<'listAttributes'> = envelope(ctx, p, page.count, page.results);
      ctx.body = body;
    },

    /** What the calling client owns, among the groups it may read or write. */
    async listOwnedAttributes(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const principal = ctx.state.principal as Principal;
      const p = paging(c);
      const page = await listAttributes(deps.db, {
        userId: principal.userId,
        visibility: ownedVisibility(principal.scopes),
        filters: { ...listFilters(c), ownerClientPk: principal.clientPk ?? null },
        page: p,
        now: deps.now(),
      });
      const body: Ok<'listOwnedAttributes'> = envelope(ctx, p, page.count, page.results);
      ctx.body = body;
    },

    /** Attributes with one value (or null) per day of the window ending at date_max. */
    async listAttributesWithValues(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const principal = ctx.state.principal as Principal;
      const p = paging(c);
      const attributes = names(c, 'attributes');
      const templates = names(c, 'templates');
      if (attributes && templates) throw badRequest('Use either attributes or templates, not both.');
      const page = await listAttributesWithValues(deps.db, {
        userId: principal.userId,
        visibility: readOrWriteVisibility(principal.scopes),
        filters: { groups: names(c, 'groups'), names: attributes, templates, manual: manualFilter(c) },
        page: p,
        dateMax: await dateMax(deps, c, principal),
        days: queryInt(c, 'days', 1),
      });
      const body: Ok<'listAttributesWithValues'> = envelope(ctx, p, page.count, page.results);
      ctx.body = body;
    },

    /** One attribute's stored values, newest first; unknown or hidden attributes have none. */
    async listAttributeValues(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const principal = ctx.state.principal as Principal;
      const p = paging(c);
      const page = await listValues(deps.db, {
        userId: principal.userId,
        attribute: queryString(c, 'attribute') ?? '',
        visibility: readOrWriteVisibility(principal.scopes),
        dateMax: await dateMax(deps, c, principal),
        limit: p.limit,
        offset: p.offset,
      });
      const body: Ok<'listAttributeValues'> = envelope(ctx, p, page.count, page.results);
      ctx.body = body;
    },
  };
}
