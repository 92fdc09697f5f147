/**
 * CPU micro-benchmark of issue 35's fourth stop for the attribute list (docs/request-path.md,
 * "Issue 35, fourth stop", "Attributes and correlations"): the former read (a row per attribute,
 * each column parsed by pg, the object shaped in JavaScript, the answer serialised by
 * `JSON.stringify`) against the current one (the page's objects as JSON text written by PostgreSQL,
 * carried into the answer as it is), on the bench's dataset, for the bench's request (`?limit=100`,
 * every scope), behind a guard shaped like the recheck a steady request carries. The answers'
 * texts are checked equal first. The correlation list (fifth stop): its former read, rows as
 * objects, against the current one, rows as arrays read by position; and, as a control, the same
 * read on both sides: its two figures differ only by the machine's noise.
 *
 * CPU time per request of this process (`process.cpuUsage`: the statement sent, its answer read,
 * parsed and shaped, the answer's text made) and of the connection's PostgreSQL backend
 * (/proc/<pid>/stat), old and new in interleaved blocks, medians. Run after a bench has loaded its
 * dataset (`npm run bench -- --small`): `npm run build && npx tsc -p tsconfig.bench.json && node
 * dist/test/bench/reads-micro.js [--users 100] [--calls 200] [--blocks 9] [--mix]
 * [--reads attributes,correlations,correlation-plan,correlation-rows,control]`. Say the load average
 * beside the figures: the machine is shared.
 */
import os from 'node:os';
import type { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { guardedDatabase, type Database, type FirstStatementGuard } from '../../src/db/database';
import { raw, sql } from '../../src/db/sql';
import { LOW_PRIORITY } from '../../src/db/catalogue-templates';
import { VALUE_TYPE_DESCRIPTIONS } from '../../src/db/catalogue-value-types';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { readVisibility, visibleTo, type Visibility } from '../../src/domain/apps-and-grants/visibility';
import { availableServices } from '../../src/domain/tracking/able-services';
import { ATTRIBUTE_ORDER } from '../../src/domain/tracking/attribute-order';
import { listAttributesText, type AttributeRow } from '../../src/domain/tracking/attributes';
import { correlationObject, listCorrelations } from '../../src/domain/derived/correlations';
import { MAX_OFFSET } from '../../src/domain/tracking/values';
import { openBenchServer, loadedSpec } from './database';
import { onInterrupt } from './cleanup';
import { CLIENT_NAME } from './fixtures';
import { backendCpuMs } from './sql-measure';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** A guard like a steady request's recheck and count: its columns on every row of the read. */
function benchGuard(): FirstStatementGuard {
  const guard: FirstStatementGuard = {
    ctes: sql`guard as (select 1::integer as quota_points, ${Date.now() + 3_600_000}::bigint as quota_expire, true as guard_proceed)`,
    take: () => undefined,
    columnCount: 3,
    takeValues: () => undefined,
    runAlone: async () => undefined,
  };
  return guard;
}

/** The former attribute list (commit 6ac3b7e): a row per attribute, shaped by `attributeObject`. */
async function formerAttributes(db: Database, userId: number, visibility: Visibility, now: Date): Promise<{ count: number; results: unknown[] }> {
  const columns = raw(`a.id, a.user_id, a.name, a.label, a.template_name, a.group_name, g.label as group_label, g.priority as group_priority,
       a.value_type, a.priority, a.manual, a.active, a.private, o.client_id as service_name, o.name as service_label`);
  const rows = await db.read<AttributeRow & { total: number }>(sql`select p.*, ${availableServices(raw('p'), now)} as available_services
  from (select ${columns}, count(*) over () as total
  from attributes a join groups g on g.name = a.group_name left join oauth_clients o on o.id = a.owner_client_pk
 where a.user_id = ${userId} and ${visibleTo(visibility, raw('a'))}
   and a.active
   and a.priority < ${LOW_PRIORITY}::integer
 order by ${ATTRIBUTE_ORDER}
 limit ${100}::bigint offset ${0}::bigint) as p order by p.group_priority, p.priority, p.name`);
  const attributeObject = (row: AttributeRow) => ({
    template: row.template_name,
    name: row.name,
    label: row.label,
    group: { name: row.group_name, label: row.group_label, priority: row.group_priority },
    service: row.service_name === null ? null : { name: row.service_name, label: row.service_label ?? row.service_name },
    active: row.active,
    priority: row.priority,
    manual: row.manual,
    value_type: row.value_type,
    value_type_description: VALUE_TYPE_DESCRIPTIONS[row.value_type],
    available_services: row.available_services,
  });
  return { count: rows[0]?.total ?? 0, results: rows.map(attributeObject) };
}

/**
 * The former correlation list (commit e7e351d): its rows as objects (pg copies a prebuilt object of
 * all 18 columns per row, the guard's among them), shaped by `correlationObject`.
 */
async function formerCorrelations(
  db: Database,
  userId: number,
  visibility: Visibility,
  /** The person's key hidden from the planner, as the current read has it (`personKey`): the rows' change measured alone. */
  keyHidden = false,
): Promise<{ count: number; results: unknown[] }> {
  type Row = Parameters<typeof correlationObject>[0];
  const page = { limit: 100, offset: 0 };
  const rows = await db.read<Row>(sql`select c.date, c.period, c."offset", a1.name as attribute, a2.name as attribute2, c.value, c.p, c.percentage, c.stars,
       c.second_person, array_to_json(c.second_person_elements) as second_person_elements, c.strength_description, c.stars_description, count(*) over () as total
  from correlations c
  join attributes a1 on a1.user_id = c.user_id and a1.id = c.attribute_id
  join attributes a2 on a2.user_id = c.user_id and a2.id = c.attribute2_id
 where c.user_id = ${keyHidden ? sql`(select ${userId}::bigint)` : userId} and (${visibleTo(visibility, raw('a1'))} or ${visibleTo(visibility, raw('a2'))}) and c.date = (select max(w.date) from derived_weeks w where w.user_id = ${userId})
 order by abs(c.value) desc, a1.name, a2.name, c."offset" desc
 limit ${page.limit}::bigint offset ${Math.min(page.offset, MAX_OFFSET)}::bigint`);
  return { count: rows[0]?.total ?? 0, results: rows.map(correlationObject) };
}

/** The answer's text, as the handler serialises it (the envelope of page 1). */
const answerOf = (page: { count: number; results: unknown[] }) => JSON.stringify({ count: page.count, next: null, previous: null, results: page.results });

/** A read and its answer's text, as the handler makes it. */
type Answer = (db: Database, userId: number) => Promise<string>;

/**
 * CPU µs per request of this process and of the connection's backend (`pid`), for `answer` over
 * `calls` requests, each on a fresh guarded handle, for `people` in turn (one person; with `--mix`,
 * the bench's people, as a pool connection of the bench serves them).
 */
async function cpuPerRequest(knex: Knex, pid: number, answer: Answer, calls: number, people: readonly number[]): Promise<[number, number]> {
  const start = process.cpuUsage();
  const backendStart = backendCpuMs(pid);
  for (let i = 0; i < calls; i++) await answer(guardedDatabase(knex, benchGuard()), people[i % people.length]);
  const used = process.cpuUsage(start);
  return [(used.user + used.system) / calls, ((backendCpuMs(pid) - backendStart) * 1000) / calls];
}

async function compare(
  knex: Knex,
  pid: number,
  name: string,
  old: Answer,
  current: Answer,
  calls: number,
  blocks: number,
  people: readonly number[],
): Promise<void> {
  const [before, after] = [await old(guardedDatabase(knex, benchGuard()), people[0]), await current(guardedDatabase(knex, benchGuard()), people[0])];
  if (before !== after) throw new Error(`${name}: the answers differ:\n${before.slice(0, 400)}\n${after.slice(0, 400)}`);
  const runs: Array<[[number, number], [number, number]]> = [];
  // Each block measures both, the first of the pair alternating (the second of a pair ran measurably
  // slower on this machine whichever it was).
  for (let block = 0; block < blocks; block++) {
    if (block % 2 === 0) runs.push([await cpuPerRequest(knex, pid, old, calls, people), await cpuPerRequest(knex, pid, current, calls, people)]);
    else {
      const second = await cpuPerRequest(knex, pid, current, calls, people);
      runs.push([await cpuPerRequest(knex, pid, old, calls, people), second]);
    }
  }
  const results = JSON.parse(after) as { results: unknown[] };
  const figure = (which: 0 | 1, part: 0 | 1) => median(runs.map((run) => run[which][part])).toFixed(0);
  console.log(
    `${name} (${results.results.length} objects, ${after.length} bytes, the same text), µs of CPU per request: ` +
      `service ${figure(0, 0)} -> ${figure(1, 0)}, PostgreSQL ${figure(0, 1)} -> ${figure(1, 1)}`,
  );
}

async function main(): Promise<void> {
  const users = Number(arg('users', '100'));
  const calls = Number(arg('calls', '200'));
  const blocks = Number(arg('blocks', '9'));
  const reads = arg('reads', 'attributes,correlations,correlation-plan,correlation-rows,control').split(',');
  const server = await openBenchServer(process.env.DATABASE_URL);
  const unregister = onInterrupt(() => server.stop());
  try {
    const database = `daybook_bench_${users}`;
    if (!(await loadedSpec(server, database))) throw new Error(`${database} is not loaded: run \`npm run bench -- --small\` first.`);
    const knex = createKnex(server.urlOf(database), { pool: { min: 1, max: 1 } });
    try {
      const client = await knex('oauth_clients').where({ name: CLIENT_NAME }).first('id');
      const people = await knex('tokens').where({ client_pk: client.id }).distinct('user_id').orderBy('user_id');
      const userId = Number(people[Math.floor(people.length / 2)].user_id);
      // --mix: each request for the next of the bench's people (the first of them for the answers' check).
      const asked = process.argv.includes('--mix')
        ? [userId, ...people.map((row: { user_id: string }) => Number(row.user_id)).filter((id: number) => id !== userId)]
        : [userId];
      const pid = Number((await knex.raw('select pg_backend_pid() as pid')).rows[0].pid);
      const visibility = readVisibility(new Set(V2_SCOPE_NAMES));
      const now = new Date();
      const page = { limit: 100, offset: 0 };
      console.log(
        `${database}, ${asked.length > 1 ? `${asked.length} people in turn` : `person ${userId}`}; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}`,
      );
      if (reads.includes('attributes'))
        await compare(
          knex,
          pid,
          'attributes',
          async (db, userId) => answerOf(await formerAttributes(db, userId, visibility, now)),
          async (db, userId) => {
            const text = await listAttributesText(db, { userId, visibility, filters: {}, page, now });
            return `{"count":${text.count},"next":null,"previous":null,"results":${text.results}}`;
          },
          calls,
          blocks,
          asked,
        );
      if (reads.includes('correlations'))
        await compare(
          knex,
          pid,
          'correlations (former -> current: rows as arrays, the key hidden from the planner)',
          async (db, userId) => answerOf(await formerCorrelations(db, userId, visibility)),
          async (db, userId) => answerOf(await listCorrelations(db, { userId, visibility, filters: {}, page })),
          calls,
          blocks,
          asked,
        );
      if (reads.includes('correlation-plan'))
        await compare(
          knex,
          pid,
          'correlations (rows as objects both; the key shown -> hidden)',
          async (db, userId) => answerOf(await formerCorrelations(db, userId, visibility)),
          async (db, userId) => answerOf(await formerCorrelations(db, userId, visibility, true)),
          calls,
          blocks,
          asked,
        );
      if (reads.includes('correlation-rows'))
        await compare(
          knex,
          pid,
          'correlations (the key hidden both; rows as objects -> arrays)',
          async (db, userId) => answerOf(await formerCorrelations(db, userId, visibility, true)),
          async (db, userId) => answerOf(await listCorrelations(db, { userId, visibility, filters: {}, page })),
          calls,
          blocks,
          asked,
        );
      if (reads.includes('control'))
        await compare(
          knex,
          pid,
          'correlations (control: the same read on both sides)',
          async (db, userId) => answerOf(await listCorrelations(db, { userId, visibility, filters: {}, page })),
          async (db, userId) => answerOf(await listCorrelations(db, { userId, visibility, filters: {}, page })),
          calls,
          blocks,
          asked,
        );
      console.log(
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}`,
      );
    } finally {
      await knex.destroy();
    }
  } finally {
    unregister();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
