/**
 * CPU micro-benchmark of the attribute and correlation lists' reads, on the bench's dataset, for
 * the bench's requests (`?limit=100`, every scope), behind a guard shaped like the recheck a steady
 * request carries, the answer's text made as the handler makes it.
 *
 * - attributes (issue 35's fourth stop: docs/request-path.md, "Attributes and correlations"): the
 *   former read (a row per attribute, each column parsed by pg, the object shaped in JavaScript,
 *   the answer serialised by `JSON.stringify`) against the current one (the page's objects as JSON
 *   text written by PostgreSQL, carried into the answer as it is). The answers' texts are checked
 *   equal first.
 * - correlations: the current read (`listCorrelations`) against a control, the same read on both
 *   sides, so the two sides' figures differ by the machine's noise alone; a change is measured by
 *   running this before and after it. (The former read against the current one, the fifth stop's
 *   changes each alone, recorded in "Issue 35, fifth stop", "Correlations", was measured with this
 *   file as of commit f6300ee.)
 *
 * CPU time per request of this process (`process.cpuUsage`: the statement sent, its answer read,
 * parsed and shaped, the answer's text made) and of the connection's PostgreSQL backend
 * (/proc/<pid>/stat), the two sides in interleaved blocks, medians. Run after a bench has loaded
 * its dataset (`npm run bench -- --small`): `npm run build && npx tsc -p tsconfig.bench.json &&
 * node dist/test/bench/reads-micro.js [--users 100] [--calls 200] [--blocks 9] [--mix]
 * [--reads attributes,correlations]`. Say the load average beside the figures: the machine is shared.
 */
import { guardedDatabase, type Database } from '../../src/db/database';
import { raw, sql } from '../../src/db/sql';
import { LOW_PRIORITY } from '../../src/db/catalogue-templates';
import { VALUE_TYPE_DESCRIPTIONS } from '../../src/db/catalogue-value-types';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { readVisibility, visibleTo, type Visibility } from '../../src/domain/apps-and-grants/visibility';
import { availableServices } from '../../src/domain/tracking/able-services';
import { ATTRIBUTE_ORDER } from '../../src/domain/tracking/attribute-order';
import { listAttributesText, type AttributeRow } from '../../src/domain/tracking/attributes';
import { listCorrelations } from '../../src/domain/derived/correlations';
import { arg, benchGuard, cpuPerCall, interleaved, loadAverage, median, onBenchDataset, runScript, type BenchConnection } from './micro-harness';

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

/** The answer's text, as the handler serialises it (the envelope of page 1). */
const answerOf = (page: { count: number; results: unknown[] }) => JSON.stringify({ count: page.count, next: null, previous: null, results: page.results });

/** A read and its answer's text, as the handler makes it. */
type Answer = (db: Database, userId: number) => Promise<string>;

/** Two reads of one list compared: their answers' texts checked equal, then their CPU per request, for `people` in turn. */
async function compare(
  bench: BenchConnection,
  name: string,
  old: Answer,
  current: Answer,
  calls: number,
  blocks: number,
  people: readonly number[],
): Promise<void> {
  const answerOnce = (answer: Answer) => answer(guardedDatabase(bench.knex, benchGuard()), people[0]);
  const [before, after] = [await answerOnce(old), await answerOnce(current)];
  if (before !== after) throw new Error(`${name}: the answers differ:\n${before.slice(0, 400)}\n${after.slice(0, 400)}`);
  // Each request on a fresh guarded handle, for the next of `people` (one person; with `--mix`, the
  // bench's people, as a pool connection of the bench serves them).
  const perRequest = (answer: Answer) => () =>
    cpuPerCall(bench.pid, calls, (i) => answer(guardedDatabase(bench.knex, benchGuard()), people[i % people.length]));
  const runs = await interleaved(blocks, perRequest(old), perRequest(current));
  const figure = (side: 0 | 1, key: 'serviceUs' | 'backendUs') => median(runs[side].map((run) => run[key])).toFixed(0);
  const results = JSON.parse(after) as { results: unknown[] };
  console.log(
    `${name} (${results.results.length} objects, ${after.length} bytes, the same text), µs of CPU per request: ` +
      `service ${figure(0, 'serviceUs')} -> ${figure(1, 'serviceUs')}, PostgreSQL ${figure(0, 'backendUs')} -> ${figure(1, 'backendUs')}`,
  );
}

async function main(): Promise<void> {
  const users = Number(arg('users', '100'));
  const calls = Number(arg('calls', '200'));
  const blocks = Number(arg('blocks', '9'));
  const reads = arg('reads', 'attributes,correlations').split(',');
  await onBenchDataset(users, async (bench) => {
    const { userId } = bench;
    // --mix: each request for the next of the bench's people (the first of them for the answers' check).
    const asked = process.argv.includes('--mix') ? [userId, ...bench.people.filter((id) => id !== userId)] : [userId];
    const visibility = readVisibility(new Set(V2_SCOPE_NAMES));
    const now = new Date();
    const page = { limit: 100, offset: 0 };
    console.log(`${bench.database}, ${asked.length > 1 ? `${asked.length} people in turn` : `person ${userId}`}; load average ${loadAverage()}`);
    if (reads.includes('attributes'))
      await compare(
        bench,
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
    if (reads.includes('correlations')) {
      const current: Answer = async (db, userId) => answerOf(await listCorrelations(db, { userId, visibility, filters: {}, page }));
      await compare(bench, 'correlations (control: the same read on both sides)', current, current, calls, blocks, asked);
    }
    console.log(`load average ${loadAverage()}`);
  });
}

runScript(main);
