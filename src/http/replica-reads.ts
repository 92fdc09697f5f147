/**
 * Which API requests read from a streaming replica when DATABASE_REPLICA_URLS is set (src/db/replicas.ts;
 * docs/operating.md, "Read replicas"): the heavy person-data reads. Their handle (src/db/database.ts)
 * sends each read to a replica and the person's last-write mark, with the request's guard, to the
 * primary at once; everything else (credentials, the count, writes, the light reads) stays on the
 * primary alone.
 */
import type Koa from 'koa';
import type { PersonReads } from '../db/database';
import type { Replicas } from '../db/replicas';
import { apiFor, type ApiName } from './documents';

/** The operations whose reads the replicas serve, per API (their domain functions read with `Database.read`). */
const REPLICA_OPERATIONS: Record<ApiName, ReadonlySet<string>> = {
  v2: new Set(['listAttributesWithValues', 'listAttributeValues', 'listCorrelations']),
  v1: new Set(['getUserToday', 'listUserAttributes']),
  oauth: new Set(),
};

/** The replica reads of the request's person, when its operation is one of them and a replica is usable. */
export function replicaReadsOf(ctx: Koa.Context, replicas: Replicas | undefined, userId: number | undefined): PersonReads | undefined {
  if (!replicas || userId === undefined) return undefined;
  const api = apiFor(ctx.path);
  const operationId = ctx.state.operation?.operationId;
  if (api === undefined || operationId === undefined || !REPLICA_OPERATIONS[api].has(operationId)) return undefined;
  return replicas.forPerson(userId);
}
