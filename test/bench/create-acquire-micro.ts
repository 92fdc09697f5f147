/**
 * CPU micro-benchmark of issue 35's fourth stop, create and acquire (docs/request-path.md, "Issue 35,
 * fourth stop", "Create and acquire"): the v2 handlers of a 35-item create (the bench's body: new
 * labels each request) and of a steady 35-name acquire (the bench's body, the attributes remembered),
 * from the parsed body to the answer's JSON text, on a request database that carries a guard and
 * answers at once but runs pg's conversion of every value of the statement. A former build against
 * the current one in one process, interleaved blocks, CPU time (`process.cpuUsage`), medians:
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist/test/bench/create-acquire-micro.js [--old DIR]
 *
 * DIR is a copy of a former build's `dist` (its `src`), e.g. `cp -r dist/src .data/old-dist/` before
 * the change; without it the current build is measured against itself. Say the load average beside
 * the figures: the machine is shared.
 */
import { createRequire } from 'node:module';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import Koa from 'koa';
import type { Deps } from '../../src/deps';
import type { Principal } from '../../src/domain/apps-and-grants/principal';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { selectDemoTemplates } from '../../src/demo/demo-generator';
import { TEMPLATES_BY_NAME } from '../../src/db/catalogue-templates';
import { createdName } from '../../src/domain/tracking/writes/create';
import { benchGuard, interleaved, loadAverage, median } from './micro-harness';

const load = createRequire(__filename);
const BLOCKS = Number(process.env.BLOCKS ?? 15);
const REQUESTS = Number(process.env.REQUESTS ?? 400);

type Handlers = ReturnType<typeof import('../../src/api/v2/writing').writingHandlers>;
type SqlModule = typeof import('../../src/db/sql');
type DatabaseModule = typeof import('../../src/db/database');

/** pg's conversion of a statement's values (what `submit` runs before writing them). */
const { prepareValue } = load('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

/** A build's handlers and what a request database is made of, loaded from `root` (a `dist/src`). */
interface Build {
  handlers: Handlers;
  sql: SqlModule;
  database: DatabaseModule;
}

function buildAt(root: string): Build {
  const deps = { now: () => new Date() } as unknown as Deps;
  const writing = load(path.join(root, 'api/v2/writing.js')) as typeof import('../../src/api/v2/writing');
  return {
    handlers: writing.writingHandlers(deps),
    sql: load(path.join(root, 'db/sql.js')) as SqlModule,
    database: load(path.join(root, 'db/database.js')) as DatabaseModule,
  };
}

/** What the fake database answers a statement of the request being measured. */
let answerOf: (text: string) => unknown[] = () => [];

/** A connection that converts the values as pg does (and their bytes) and answers at once. */
const connection = {
  connection: { parsedStatements: {} as Record<string, string> },
  query(query: { name?: string; text: string; values?: unknown[]; callback: (error: Error | undefined, result: { rows: unknown[] }) => void }) {
    let bytes = 0;
    for (const value of query.values ?? []) {
      const text = prepareValue(value);
      if (typeof text === 'string') bytes += Buffer.byteLength(text);
    }
    if (query.name) connection.connection.parsedStatements[query.name] = query.text;
    query.callback(undefined, { rows: bytes >= 0 ? answerOf(query.text) : [] });
  },
};

/** The part of knex `rows` uses. */
const knex = {
  client: { acquireConnection: async () => connection, releaseConnection: async () => undefined, config: {}, emit: () => true },
  listenerCount: () => 0,
  isTransaction: false,
};

const principal: Principal = {
  kind: 'oauth',
  userId: 1,
  username: 'bench',
  scopes: new Set(V2_SCOPE_NAMES),
  clientPk: 7,
  rateLimitKey: 'bench',
  timezone: 'Europe/Berlin',
} as Principal;

const app = new Koa();

/** A request of `build`: a fresh context on an unsent response, its state as authentication leaves it (a guard to carry). */
function requestContext(build: Build): Koa.Context {
  const req = new http.IncomingMessage(new net.Socket());
  const ctx = app.createContext(req, new http.ServerResponse(req)) as Koa.Context;
  // The build's own `sql`, for a former build's statements to compose it.
  const guard = benchGuard({ ctes: build.sql.sql`guard as (select true as guard_proceed, 1 as guard_points)`, columnCount: 2 });
  ctx.state.principal = principal;
  ctx.state.db = build.database.guardedDatabase(knex as never, guard);
  return ctx;
}

/** A request's parsed body and what the database answers its statements. */
type Body = { items: unknown[]; answer: (text: string) => unknown[] };
type Request = Body & { ctx: Koa.Context };

/** CPU µs per request of `handle` over prepared requests, the answer serialised as Koa's `respond` would. */
async function cpuPerRequest(requests: Request[], handle: (request: Request) => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  for (const request of requests) {
    answerOf = request.answer;
    await handle(request);
    JSON.stringify(request.ctx.body);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / requests.length;
}

/**
 * Former and current in interleaved blocks (the harness's `interleaved`: which build goes first
 * alternates, as the second of a pair ran slower whichever it was); `bodies` makes a block's parsed
 * bodies (untimed).
 */
async function compare(
  name: string,
  builds: [Build, Build],
  bodies: (count: number) => Body[],
  handle: (build: Build) => (request: Request) => Promise<void>,
): Promise<void> {
  const block = (build: Build) => () =>
    cpuPerRequest(
      bodies(REQUESTS).map((body) => ({ ...body, ctx: requestContext(build) })),
      handle(build),
    );
  const [formers, currents] = await interleaved(BLOCKS, block(builds[0]), block(builds[1]));
  const [before, after] = [median(formers), median(currents)];
  console.log(`${name}: ${before.toFixed(1)} -> ${after.toFixed(1)} µs per request (ratio ${(after / before).toFixed(2)})`);
}

/** The bench's create body (test/bench/scenarios.ts): 35 new labels. */
let sequence = 0;
function createBodies(count: number): Body[] {
  return Array.from({ length: count }, () => {
    const n = sequence++;
    const labels = Array.from({ length: 35 }, (_, i) => `Bench created abc123 ${n} ${i}`);
    const rows = createdRows(labels);
    return {
      items: JSON.parse(JSON.stringify(labels.map((label) => ({ label, group: 'activity', value_type: 0 })))) as unknown[],
      answer: (text: string) => {
        if (!text.includes('insert into attributes')) throw new Error('Unexpected statement of a create.');
        return rows;
      },
    };
  });
}

/** The rows the insert returns for a create body (every name new), after the guard's columns. */
function createdRows(labels: string[]): unknown[] {
  return labels.map((label, i) => ({
    guard_proceed: true,
    guard_points: 1,
    id: 1000 + i,
    name: createdName(label),
    label,
    template_name: null,
    group_name: 'activity',
    value_type: 0,
    priority: 5,
    manual: true,
    active: true,
    owner_client_pk: 7,
  }));
}

/** The person's attributes the acquire body names, as the read finds them (already the service's: a steady re-acquire). */
const ACQUIRED = selectDemoTemplates(35);
const attributeRows = ACQUIRED.map((name, i) => {
  const template = TEMPLATES_BY_NAME.get(name)!;
  return {
    guard_proceed: true,
    guard_points: 1,
    guard_found: true,
    id: 500 + i,
    name,
    label: template.label,
    template_name: name,
    group_name: template.group,
    value_type: template.valueType,
    priority: template.priority,
    manual: false,
    active: true,
    owner_client_pk: 7,
  };
});

const acquireAnswer = (text: string) => (text.includes('unchanged.ok') ? [{ guard_proceed: true, guard_points: 1, ok: true }] : attributeRows);

function acquireBodies(count: number): Body[] {
  const text = JSON.stringify(ACQUIRED.map((name) => ({ name })));
  return Array.from({ length: count }, () => ({ items: JSON.parse(text) as unknown[], answer: acquireAnswer }));
}

/** CPU µs per call of `run` over `count` calls. */
function cpuPerCall(run: (index: number) => unknown, count: number): number {
  const start = process.cpuUsage();
  for (let index = 0; index < count; index++) run(index);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

/** Two forms of one step, block after block over the same inputs; `setup` (untimed) makes a block's inputs. */
function compareCalls(name: string, count: number, old: (index: number) => unknown, current: (index: number) => unknown, setup = () => {}): void {
  const pairs: number[][] = [];
  for (let block = 0; block < BLOCKS; block++) {
    setup();
    const before = cpuPerCall(old, count);
    setup();
    pairs.push([before, cpuPerCall(current, count)]);
  }
  console.log(`  ${name}: ${median(pairs.map((p) => p[0])).toFixed(1)} -> ${median(pairs.map((p) => p[1])).toFixed(1)} µs per request`);
}

type LabelName = typeof import('../../src/domain/tracking/writes/label-name');
type NewAttributes = typeof import('../../src/domain/tracking/writes/new-attributes');

/** The steps each change replaced, alone: the former build's function (or the former form) against the current one. */
function steps(oldRoot: string, newRoot: string): void {
  const [oldNames, newNames] = [oldRoot, newRoot].map((root) => load(path.join(root, 'domain/tracking/writes/label-name.js')) as LabelName);
  const [oldInsert, newInsert] = [oldRoot, newRoot].map((root) => load(path.join(root, 'domain/tracking/writes/new-attributes.js')) as NewAttributes);
  const { arrayText } = load(path.join(newRoot, 'db/sql.js')) as SqlModule;
  let items: Array<Array<{ label: string; group: string; value_type: number }>> = [];
  const fresh = () => (items = createBodies(REQUESTS).map((body) => body.items as Array<{ label: string; group: string; value_type: number }>));
  let sink: unknown;

  compareCalls(
    "a create's 35 labels named: nameFromLabel twice each (the check, then createdName) -> once",
    REQUESTS,
    (i) => items[i].forEach((item) => (sink = oldNames.nameFromLabel(item.label) && oldNames.nameFromLabel(item.label))),
    (i) => items[i].forEach((item) => (sink = newNames.nameFromLabel(item.label))),
    fresh,
  );
  const stored = { name: 'bench_created', priority: 5, manual: true };
  compareCalls(
    "a create's 35 echoes: `{ ...sent, name, priority, manual }` -> a literal",
    REQUESTS,
    (i) => (sink = items[i].map((sent) => ({ ...sent, name: stored.name, priority: stored.priority, manual: stored.manual }))),
    (i) =>
      (sink = items[i].map(({ label, group, value_type }) => ({
        label,
        group,
        value_type,
        name: stored.name,
        priority: stored.priority,
        manual: stored.manual,
      }))),
    fresh,
  );
  const now = new Date();
  const rowsOf = (batch: Array<{ label: string }>) =>
    batch.map(({ label }) => ({
      user_id: 51,
      name: newNames.nameFromLabel(label),
      label,
      template_name: null,
      group_name: 'activity',
      value_type: 0,
      priority: 5,
      manual: true,
      active: true,
      owner_client_pk: 7,
      created_at: now,
    }));
  const converted = (statement: { values: unknown[] }) =>
    statement.values.map((value) => (Array.isArray(value) ? (arrayText(value) ?? prepareValue(value)) : prepareValue(value)));
  let rows: ReturnType<typeof rowsOf>[] = [];
  compareCalls(
    "a create's insert and its values as pg sends them: rows sorted, creation times as Dates -> as given, as text",
    REQUESTS,
    (i) => (sink = converted(oldInsert.insertAttributesStatement(rows[i], true))),
    (i) => (sink = converted(newInsert.insertAttributesStatement(rows[i], true))),
    () => (rows = fresh().map(rowsOf)),
  );
  // An acquire remembers the attributes it took as the statement left them, and the next request
  // copies those: spread copies of spread copies.
  type Taken = Omit<(typeof attributeRows)[number], 'guard_proceed' | 'guard_points' | 'guard_found'>;
  let spread: Taken[] = attributeRows.map((row) => ({ ...row }));
  let literal: Taken[] = attributeRows.map((row) => ({ ...row }));
  compareCalls(
    "an acquire's 35 attributes afterwards: `{ ...attribute, owner_client_pk, active, manual }` -> a literal",
    REQUESTS,
    () => (spread = spread.map((a) => ({ ...a, owner_client_pk: 7, active: true, manual: a.manual }))),
    () =>
      (literal = literal.map((a) => ({
        id: a.id,
        name: a.name,
        label: a.label,
        template_name: a.template_name,
        group_name: a.group_name,
        value_type: a.value_type,
        priority: a.priority,
        manual: a.manual,
        active: true,
        owner_client_pk: 7,
      }))),
  );
  void sink;
}

async function main(): Promise<void> {
  const oldAt = process.argv.indexOf('--old');
  const current = buildAt(path.resolve(__dirname, '../../src'));
  const former = oldAt > 0 ? buildAt(path.resolve(process.argv[oldAt + 1], 'src')) : current;
  console.log(`load average ${loadAverage()}; ${BLOCKS} blocks of ${REQUESTS} requests`);

  const create = (build: Build) => (request: Request) =>
    build.handlers.createAttributes({ request: { requestBody: request.items, query: {} } } as never, request.ctx as never);
  const acquire = (build: Build) => (request: Request) =>
    build.handlers.acquireAttributes({ request: { requestBody: request.items, query: {} } } as never, request.ctx as never);
  for (let round = 0; round < 2; round++) {
    await compare('create, 35 labels', [former, current], createBodies, create);
    await compare('acquire, 35 names (steady)', [former, current], acquireBodies, acquire);
  }
  console.log('The steps alone:');
  steps(oldAt > 0 ? path.resolve(process.argv[oldAt + 1], 'src') : path.resolve(__dirname, '../../src'), path.resolve(__dirname, '../../src'));
  console.log(`load average ${loadAverage()}`);
}

void main();
