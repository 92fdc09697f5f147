/**
 * From the outbox to deliveries (docs/webhooks.md, "From a change to a delivery"). Runs in the
 * workers, in ONE transaction on one connection: it takes the due outbox rows (skipping rows
 * another worker holds), turns them into one message per endpoint and person, stores the
 * deliveries and queues their jobs through `enqueue`, which runs its statement on the same
 * connection. A worker killed anywhere in between rolls everything back: the outbox rows stay for
 * the next run, nothing is lost and nothing is queued twice.
 *
 * Who hears what: an endpoint hears about a person only while its app holds a live grant from that
 * person, and only about the attributes that grant's scopes let it read through the values
 * endpoints (read or write scopes of the group, manual scopes for manual attributes). Derived data
 * follows the read scopes, as the derived-data endpoints do. `grant.revoked` goes only to the app
 * whose grant ended.
 */
import crypto from 'node:crypto';
import { raw, rowsOn, sql, type QueryFunction } from '../../db/sql';
import { liveToken } from '../apps-and-grants/tokens';
import { expandScopes } from '../apps-and-grants/scopes';
import { isVisible, readOrWriteVisibility, readVisibility, type Visibility } from '../apps-and-grants/visibility';
import type { EventType } from './events';

/** A connection's query function (a pg client inside a transaction). */
export type SqlClient = QueryFunction;

export interface DispatchOptions {
  /** A person's value changes wait until the oldest is this old, so that batches sent close together make one event. */
  coalesceMs: number;
  /** Queues the delivery's job, on `client` (in the same transaction). */
  enqueue(client: SqlClient, deliveryId: number): Promise<unknown>;
  /** Outbox rows taken per run. */
  limit?: number;
}

interface ValueChange {
  user_id: string;
  attribute_id: string;
  date: string;
}

/** A row of the value outbox: a person's day and the attributes written on it. */
interface ValueChangeRow {
  user_id: string;
  date: string;
  attribute_ids: string[];
}

interface OtherEvent {
  user_id: string;
  client_pk: string | null;
  type: EventType;
  data: Record<string, unknown>;
}

interface Subscription {
  endpoint_id: string;
  client_pk: string;
  events: EventType[];
  user_id: string;
  scopes: string[];
}

interface AttributeInfo {
  id: string;
  name: string;
  group_name: string;
  manual: boolean;
}

/** One message for one endpoint. */
interface Message {
  endpointId: string;
  type: EventType;
  body: string;
}

/** Takes the due rows of the value outbox, one (person, attribute, day) per change. */
async function takeValueChanges(client: SqlClient, coalesceMs: number, limit: number): Promise<ValueChange[]> {
  const rows = await rowsOn<ValueChangeRow>(
    client,
    sql`delete from webhook_value_changes c
      using (select user_id, date from webhook_value_changes
              where user_id in (select user_id from webhook_value_changes group by user_id
                                having min(changed_at) <= now() - ${coalesceMs}::integer * interval '1 millisecond')
              order by user_id, date
              limit ${limit}::integer
                for update skip locked) d
      where c.user_id = d.user_id and c.date = d.date
      returning c.user_id, c.date::text as date, c.attribute_ids`,
  );
  return rows.flatMap((row) => row.attribute_ids.map((id) => ({ user_id: row.user_id, attribute_id: String(id), date: row.date })));
}

const takeEvents = (client: SqlClient, limit: number) =>
  rowsOn<OtherEvent>(
    client,
    sql`delete from webhook_events where id in (select id from webhook_events order by id limit ${limit}::integer for update skip locked)
      returning user_id, client_pk, type, data`,
  );

/** The enabled endpoints of apps holding a live grant (a live token at `now`) from these people, with the grants' scopes. */
const subscriptionsOf = (client: SqlClient, userIds: string[], now: Date) =>
  rowsOn<Subscription>(
    client,
    sql`select e.id as endpoint_id, e.client_pk, e.events, t.user_id, array_agg(distinct s.scope) as scopes
       from webhook_endpoints e
       join tokens t on t.client_pk = e.client_pk
       cross join unnest(t.scopes) as s(scope)
      where e.disabled_at is null and t.user_id = any(${userIds}::bigint[]) and ${liveToken(raw('t'), now)}
      group by e.id, t.user_id
      order by e.id, t.user_id`,
  );

const endpointsOfApps = (client: SqlClient, clientPks: string[]) =>
  rowsOn<Omit<Subscription, 'user_id' | 'scopes'>>(
    client,
    sql`select id as endpoint_id, client_pk, events from webhook_endpoints where disabled_at is null and client_pk = any(${clientPks}::bigint[])`,
  );

async function namesOf(client: SqlClient, table: 'users' | 'oauth_clients', column: 'username' | 'client_id', ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await rowsOn<{ id: string; name: string }>(client, sql`select id, ${raw(column)} as name from ${raw(table)} where id = any(${ids}::bigint[])`);
  return new Map(rows.map((row) => [String(row.id), row.name]));
}

async function attributesOf(client: SqlClient, ids: string[]): Promise<Map<string, AttributeInfo>> {
  if (ids.length === 0) return new Map();
  const rows = await rowsOn<AttributeInfo>(client, sql`select id, name, group_name, manual from attributes where id = any(${ids}::bigint[])`);
  return new Map(rows.map((row) => [String(row.id), row]));
}

/** The body every event shares: Standard Webhooks' `{type, timestamp, data}`. */
const bodyOf = (type: EventType, timestamp: string, data: Record<string, unknown>) => JSON.stringify({ type, timestamp, data });

/** An ownership change in the words of docs/webhooks.md. */
function ownershipChange(data: Record<string, unknown>): string {
  const before = data.previous_owner_pk ?? null;
  const after = data.owner_pk ?? null;
  if (after === null && data.active === false) return 'made_inactive';
  if (before === null && after !== null) return 'acquired';
  if (before !== after) return 'handed_over';
  return data.active ? 'reactivated' : 'made_inactive';
}

/** Per person and attribute, the dates changed (sorted). */
function changesByPerson(changes: ValueChange[]): Map<string, Map<string, string[]>> {
  const people = new Map<string, Map<string, string[]>>();
  for (const change of changes) {
    const attributes = people.get(String(change.user_id)) ?? new Map<string, string[]>();
    const dates = attributes.get(String(change.attribute_id)) ?? [];
    dates.push(change.date);
    attributes.set(String(change.attribute_id), dates);
    people.set(String(change.user_id), attributes);
  }
  return people;
}

/** The messages of one run: one per endpoint and person for values, one per endpoint and event for the others. */
async function messagesFor(client: SqlClient, changes: ValueChange[], events: OtherEvent[], now: Date): Promise<Message[]> {
  const timestamp = now.toISOString();
  const userIds = [...new Set([...changes.map((c) => String(c.user_id)), ...events.map((e) => String(e.user_id))])];
  const attributeIds = [
    ...new Set([...changes.map((c) => String(c.attribute_id)), ...events.filter((e) => e.data.attribute_id).map((e) => String(e.data.attribute_id))]),
  ];
  const clientPks = [
    ...new Set(
      events
        .flatMap((e) => [e.client_pk, e.data.previous_owner_pk, e.data.owner_pk])
        .filter((pk) => pk !== null && pk !== undefined)
        .map(String),
    ),
  ];
  // One after another: they share one connection.
  const subscriptions = await subscriptionsOf(client, userIds, now);
  const usernames = await namesOf(client, 'users', 'username', userIds);
  const attributes = await attributesOf(client, attributeIds);
  const services = await namesOf(client, 'oauth_clients', 'client_id', clientPks);
  const messages: Message[] = [];
  const people = changesByPerson(changes);
  for (const subscription of subscriptions) {
    const userId = String(subscription.user_id);
    const username = usernames.get(userId);
    if (username === undefined) continue;
    const scopes = expandScopes(subscription.scopes);
    const values: Visibility = readOrWriteVisibility(scopes);
    const visible = (id: unknown) => {
      const attribute = attributes.get(String(id));
      return attribute !== undefined && isVisible(values, attribute) ? attribute : undefined;
    };
    const wants = (type: EventType) => subscription.events.includes(type);
    const changed = people.get(userId);
    if (changed && wants('values.updated')) {
      const list = [...changed.entries()]
        .flatMap(([id, dates]) => {
          const attribute = visible(id);
          return attribute ? [{ name: attribute.name, dates: [...dates].sort() }] : [];
        })
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      if (list.length > 0)
        messages.push({
          endpointId: subscription.endpoint_id,
          type: 'values.updated',
          body: bodyOf('values.updated', timestamp, { username, attributes: list }),
        });
    }
    for (const event of events) {
      if (String(event.user_id) !== userId || event.type === 'grant.revoked' || !wants(event.type)) continue;
      if (event.type === 'attribute.ownership_changed') {
        const attribute = visible(event.data.attribute_id);
        if (!attribute) continue;
        const service = (pk: unknown) => (pk === null || pk === undefined ? null : (services.get(String(pk)) ?? null));
        messages.push({
          endpointId: subscription.endpoint_id,
          type: event.type,
          body: bodyOf(event.type, timestamp, {
            username,
            attribute: attribute.name,
            change: ownershipChange(event.data),
            previous_owner: service(event.data.previous_owner_pk),
            owner: service(event.data.owner_pk),
            active: event.data.active === true,
          }),
        });
      } else if (event.type === 'derived.updated') {
        const reads = readVisibility(scopes);
        if (reads.groups.length === 0 && !reads.manual) continue;
        messages.push({ endpointId: subscription.endpoint_id, type: event.type, body: bodyOf(event.type, timestamp, { username, ...event.data }) });
      }
    }
  }
  // grant.revoked: the app whose grant ended, which by now holds no live grant.
  const revoked = events.filter((e) => e.type === 'grant.revoked' && e.client_pk !== null);
  if (revoked.length > 0) {
    const endpoints = await endpointsOfApps(client, [...new Set(revoked.map((e) => String(e.client_pk)))]);
    for (const event of revoked) {
      const username = usernames.get(String(event.user_id));
      if (username === undefined) continue;
      for (const endpoint of endpoints) {
        if (String(endpoint.client_pk) !== String(event.client_pk) || !endpoint.events.includes('grant.revoked')) continue;
        messages.push({ endpointId: endpoint.endpoint_id, type: 'grant.revoked', body: bodyOf('grant.revoked', timestamp, { username }) });
      }
    }
  }
  return messages;
}

/** A message id: `msg_` and 16 random bytes (the same `webhook-id` on every attempt). */
export const newMessageId = () => `msg_${crypto.randomBytes(16).toString('base64url')}`;

/** Deliveries whose sending was asked for (a re-send, deliveries.ts, or a test event, test-event.ts), set pending and queued. */
const takeResends = (client: SqlClient, limit: number) =>
  rowsOn<{ id: string }>(
    client,
    sql`update webhook_deliveries set resend_requested_at = null, status = 'pending'
      where id in (select id from webhook_deliveries where resend_requested_at is not null order by id limit ${limit}::integer for update skip locked)
      returning id`,
  );

/** One run of the dispatcher; answers how many deliveries it queued. The caller holds `client` in a transaction. */
export async function dispatchOutbox(client: SqlClient, now: Date, options: DispatchOptions): Promise<number> {
  const limit = options.limit ?? 5000;
  const resends = await takeResends(client, limit);
  const changes = await takeValueChanges(client, options.coalesceMs, limit);
  const events = await takeEvents(client, limit);
  const messages = changes.length === 0 && events.length === 0 ? [] : await messagesFor(client, changes, events, now);
  const created =
    messages.length === 0
      ? []
      : await rowsOn<{ id: string }>(
          client,
          sql`insert into webhook_deliveries (message_id, endpoint_id, event_type, body, created_at)
     select m.message_id, m.endpoint_id, m.event_type, m.body, ${now}::timestamptz
       from unnest(${messages.map(newMessageId)}::text[], ${messages.map((m) => m.endpointId)}::bigint[], ${messages.map((m) => m.type)}::text[], ${messages.map((m) => m.body)}::text[])
            as m(message_id, endpoint_id, event_type, body)
     returning id`,
        );
  const queued = [...resends, ...created].map((row) => Number(row.id));
  for (const id of queued) await options.enqueue(client, id);
  return queued.length;
}
