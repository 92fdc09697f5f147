/**
 * Handlers of the v2 `Attributes` tag: templates, attributes, with-values, values and owned. They
 * parse the query (already validated against the document) and shape the envelope; the rules
 * (visibility, filters, order, value typing) live in the domain modules they call.
 */
import { databaseOf, principalOf } from '../../http/request-state';
import type Koa from 'koa';
import type { operations } from '../../../generated/types/v2';
import type { Deps } from '../../deps';
import { listAttributesText, listAttributesWithValues, type AttributeFilters } from '../../domain/tracking/attributes';
import { listTemplates } from '../../domain/tracking/templates';
import { listValuesText } from '../../domain/tracking/values';
import { ownedVisibility, readOrWriteVisibility, readVisibility } from '../../domain/apps-and-grants/visibility';
import { principalToday } from '../../domain/time';
import { badRequest } from '../../http/errors';
import { envelope, paging } from '../../http/paging';
import { queryDate, queryFlag, queryInt, queryNames, queryString } from '../../http/query';
import type { V2Operation } from '../../http/operation';
import { answerJson } from '../../http/json-body';
import { answerPageText } from './page-text';

type Ok<Op extends keyof operations> = operations[Op] extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;

type ListContext = V2Operation<'listAttributes'>['context'] | V2Operation<'listOwnedAttributes'>['context'];
type WithValuesContext = V2Operation<'listAttributesWithValues'>['context'] | V2Operation<'listAttributeValues'>['context'];

/** `manual` is three-state: true only manual, false no manual, absent both. */
function manualFilter(c: ListContext | V2Operation<'listAttributesWithValues'>['context']): boolean | undefined {
  return queryString(c, 'manual') === undefined ? undefined : queryFlag(c, 'manual');
}

/** `date_max` when sent (checked as every date parameter is), else the person's today. */
async function dateMax(deps: Deps, c: WithValuesContext, ctx: Koa.Context): Promise<string> {
  return queryDate(c, 'date_max') ?? principalToday(databaseOf(ctx), principalOf(ctx), deps.now());
}

/** The filters /attributes/ and /attributes/owned/ share. */
function listFilters(c: ListContext): AttributeFilters {
  return {
    groups: queryNames(c, 'groups'),
    names: queryNames(c, 'attributes'),
    excludeCustom: queryFlag(c, 'exclude_custom'),
    manual: manualFilter(c),
    includeInactive: queryFlag(c, 'include_inactive'),
    includeLowPriority: queryFlag(c, 'include_low_priority'),
  };
}

export function attributesHandlers(deps: Deps) {
  return {
    /** The catalogue; never filtered by scope. */
    async listAttributeTemplates(c: V2Operation<'listAttributeTemplates'>['context'], ctx: V2Operation<'listAttributeTemplates'>['ctx']): Promise<void> {
      const p = paging(c);
      const page = await listTemplates(deps.db, { groups: queryNames(c, 'groups'), includeLowPriority: queryFlag(c, 'include_low_priority'), page: p });
      const body: Ok<'listAttributeTemplates'> = envelope(ctx, p, page.count, page.results);
      answerJson(ctx, body);
    },

    /** The person's attributes the token may read; `owned=true` narrows to the calling client's. */
    async listAttributes(c: V2Operation<'listAttributes'>['context'], ctx: V2Operation<'listAttributes'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const p = paging(c);
      const filters = listFilters(c);
      // A simple token or a session belongs to no client, so it owns nothing.
      if (queryFlag(c, 'owned')) filters.ownerClientPk = principal.clientPk ?? null;
      const page = await listAttributesText(databaseOf(ctx), {
        userId: principal.userId,
        visibility: readVisibility(principal.scopes),
        filters,
        page: p,
        now: deps.now(),
      });
      answerPageText(ctx, p, page);
    },

    /** What the calling client owns, among the groups it may read or write. */
    async listOwnedAttributes(c: V2Operation<'listOwnedAttributes'>['context'], ctx: V2Operation<'listOwnedAttributes'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const p = paging(c);
      const page = await listAttributesText(databaseOf(ctx), {
        userId: principal.userId,
        visibility: ownedVisibility(principal.scopes),
        filters: { ...listFilters(c), ownerClientPk: principal.clientPk ?? null },
        page: p,
        now: deps.now(),
      });
      answerPageText(ctx, p, page);
    },

    /** Attributes with one value (or null) per day of the window ending at date_max. */
    async listAttributesWithValues(c: V2Operation<'listAttributesWithValues'>['context'], ctx: V2Operation<'listAttributesWithValues'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const p = paging(c);
      const attributes = queryNames(c, 'attributes');
      const templates = queryNames(c, 'templates');
      if (attributes && templates) throw badRequest('Use either attributes or templates, not both.');
      const page = await listAttributesWithValues(databaseOf(ctx), {
        userId: principal.userId,
        visibility: readOrWriteVisibility(principal.scopes),
        filters: { groups: queryNames(c, 'groups'), names: attributes, templates, manual: manualFilter(c) },
        page: p,
        dateMax: await dateMax(deps, c, ctx),
        days: queryInt(c, 'days', 1),
      });
      const body: Ok<'listAttributesWithValues'> = envelope(ctx, p, page.count, page.results);
      answerJson(ctx, body);
    },

    /** One attribute's stored values, newest first; unknown or hidden attributes have none. */
    async listAttributeValues(c: V2Operation<'listAttributeValues'>['context'], ctx: V2Operation<'listAttributeValues'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const p = paging(c);
      const page = await listValuesText(databaseOf(ctx), {
        userId: principal.userId,
        attribute: queryString(c, 'attribute') ?? '',
        visibility: readOrWriteVisibility(principal.scopes),
        dateMax: await dateMax(deps, c, ctx),
        limit: p.limit,
        offset: p.offset,
      });
      answerPageText(ctx, p, page);
    },
  };
}
