/**
 * The person's account as a whole: deleting it, and their copy of their data, streamed so an account of any size exports in constant memory:
 * values as CSV (one row per attribute per day), and everything as JSON (account, attributes with
 * their values, derived data of every week, their apps and connected apps). Values are read in
 * keyset pages along the primary key, one query per page, so no connection is held between pages
 * and a download the browser abandons simply stops. No credential is ever included: not the
 * password hash, the simple token, a client secret or a token.
 */
import { knexRaw } from '../../db/sql';
import { ATTRIBUTE_ORDER } from '../tracking/attribute-order';
import type { Knex } from 'knex';
import { VALUE_TYPE_DESCRIPTIONS } from '../../db/catalogue-value-types';
import { listClientsOwnedBy } from '../apps-and-grants/clients';
import { listConnectedApps } from '../apps-and-grants/connected-apps';
import { findUserById } from './users';
import { typedValue } from '../tracking/values';
import { csvField } from './csv-field';

/** Values per query. */
const PAGE = 5000;

interface ValueRow {
  attribute_id: number;
  date: string;
  name: string;
  label: string;
  group_label: string;
  value_type: number;
  value_num: unknown;
  value_text: unknown;
}

/** Every stored value of the person, in (attribute, date) order, a page at a time. */
async function* valuePages(db: Knex, userId: number, attributeId?: number): AsyncGenerator<ValueRow[]> {
  let after: { attributeId: number; date: string } | undefined;
  for (;;) {
    const query = db('attribute_values as v')
      .join('attributes as a', function joinAttribute() {
        this.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id');
      })
      .join('groups as g', 'g.name', 'a.group_name')
      .where('v.user_id', userId)
      .select('v.attribute_id', 'v.date', 'a.name', 'a.label', 'g.label as group_label', 'a.value_type', 'v.value_num', 'v.value_text')
      .orderBy([{ column: 'v.attribute_id' }, { column: 'v.date' }])
      .limit(PAGE);
    if (attributeId !== undefined) query.where('v.attribute_id', attributeId);
    if (after) query.whereRaw('(v.attribute_id, v.date) > (?, ?::date)', [after.attributeId, after.date]);
    const rows: ValueRow[] = await query;
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1];
    after = { attributeId: last.attribute_id, date: last.date };
  }
}

export const VALUES_CSV_HEADER = 'date,attribute,label,group,value';

/** The person's values as CSV text chunks: a header, then a row per attribute per day. */
export async function* valuesCsv(db: Knex, userId: number): AsyncGenerator<string> {
  yield `${VALUES_CSV_HEADER}\r\n`;
  for await (const rows of valuePages(db, userId)) {
    yield rows
      .map((r) => [r.date, r.name, r.label, r.group_label, typedValue(r.value_type, r.value_num, r.value_text)].map(csvField).join(',') + '\r\n')
      .join('');
  }
}

/** Everything of the person as JSON text chunks (one JSON object when joined). */
export async function* accountJson(db: Knex, userId: number, now: Date): AsyncGenerator<string> {
  const user = await findUserById(db, userId);
  if (!user) return;
  const { id: _id, simple_token_version: _version, ...account } = user;
  yield `{"exported_at":${JSON.stringify(now.toISOString())},"account":${JSON.stringify(account)},"attributes":[`;

  const attributes: Array<Record<string, unknown> & { id: number; value_type: number }> = await db('attributes as a')
    .join('groups as g', 'g.name', 'a.group_name')
    .leftJoin('oauth_clients as o', 'o.id', 'a.owner_client_pk')
    .where('a.user_id', userId)
    .orderByRaw(...knexRaw(ATTRIBUTE_ORDER))
    .select(
      'a.id',
      'a.name',
      'a.label',
      'a.template_name as template',
      'a.group_name as group',
      'a.value_type',
      'a.priority',
      'a.manual',
      'a.active',
      'a.private',
      'o.client_id as service_name',
      'o.name as service_label',
    );
  for (const [index, { id, service_name, service_label, ...attribute }] of attributes.entries()) {
    const head = {
      ...attribute,
      value_type_description: VALUE_TYPE_DESCRIPTIONS[attribute.value_type],
      service: service_name ? { name: service_name, label: service_label } : null,
    };
    yield `${index > 0 ? ',' : ''}${JSON.stringify(head).slice(0, -1)},"values":[`;
    let separator = '';
    for await (const rows of valuePages(db, userId, id)) {
      yield separator + rows.map((r) => JSON.stringify({ date: r.date, value: typedValue(r.value_type, r.value_num, r.value_text) })).join(',');
      separator = ',';
    }
    yield ']}';
  }

  const named = (table: string, columns: string[]) =>
    db(`${table} as d`)
      .join('attributes as a', function joinAttribute() {
        this.on('a.user_id', 'd.user_id').andOn('a.id', 'd.attribute_id');
      })
      .where('d.user_id', userId)
      .select('a.name as attribute', ...columns.map((c) => `d.${c}`));
  const averages = await named('averages', ['date', 'overall', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']).orderBy([
    'd.date',
    'a.name',
  ]);
  const correlations = await named('correlations', ['date', 'period', 'offset', 'value', 'p', 'stars', 'second_person', 'strength_description'])
    .join('attributes as a2', function joinSecond() {
      this.on('a2.user_id', 'd.user_id').andOn('a2.id', 'd.attribute2_id');
    })
    .select('a2.name as attribute2')
    .orderBy(['d.date', 'a.name', 'a2.name', 'd.offset']);
  const insights = await named('insights', ['created', 'target_date', 'type_name', 'period', 'priority', 'text']).orderBy(['d.created', 'd.id']);
  const apps = (await listClientsOwnedBy(db, userId)).map((c) => ({
    client_id: c.client_id,
    name: c.name,
    description: c.description,
    website: c.website,
    redirect_uris: c.redirect_uris,
    confidential: c.confidential,
    allowed_scopes: c.allowed_scopes,
  }));
  const connected = (await listConnectedApps(db, userId, now)).map((c) => ({
    client_id: c.clientId,
    name: c.name,
    scopes: c.scopes,
    connected_at: c.connectedAt,
    last_used_at: c.lastUsedAt,
  }));
  yield `],"averages":${JSON.stringify(averages)},"correlations":${JSON.stringify(correlations)},"insights":${JSON.stringify(insights)},"apps":${JSON.stringify(apps)},"connected_apps":${JSON.stringify(connected)}}`;
}

/**
 * Deletes the person and everything that is theirs, at once (the foreign keys cascade): values,
 * attributes, derived data, sessions, tokens and codes they granted, and the apps they created,
 * whose tokens held by other people stop working and whose attributes of other people are left
 * owned by nobody (as when an app is deleted). A job queued for them finds nobody and does nothing.
 */
export async function deleteAccount(db: Knex, userId: number): Promise<void> {
  await db('users').where({ id: userId }).delete();
}
