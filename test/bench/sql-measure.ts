/**
 * What one statement costs PostgreSQL, for `sql-compare`: EXPLAIN (ANALYZE, BUFFERS) run many
 * times (planning and execution time, shared buffers, the plan's shape), and the server's own CPU
 * for a loop of executions from one client (the backend's utime + stime from /proc/<pid>/stat
 * around the loop; pg_stat_statements is not loaded on the bench's cluster). The loop runs the
 * statement as a named prepared statement, as Daybook does, so it is planned the way Daybook's is
 * (custom plans first, then a generic plan if PostgreSQL finds it no worse). A write runs in a
 * transaction that is rolled back (`begin`, the statement, `rollback`), so every run writes the
 * same rows; the transaction's own cost is measured alone (`transactionCpuMs`) and taken off.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type pg from 'pg';
import type { Statement } from './sql-capture';

/** Kernel clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = 100;

/** The backend's CPU so far (user + system), in ms. */
export function backendCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

export interface ExplainFigures {
  planningMs: number;
  executionMs: number;
  /** Shared buffers hit + read by the execution (statementBuffers). */
  buffers: number;
  /** The plan's nodes, depth first, as `Node Type` (relation or index). */
  shape: string;
  /** Time in triggers (the replicas' person_writes marks on a write). */
  triggerMs: number;
}

interface PlanNode {
  'Node Type': string;
  'Subplan Name'?: string;
  'CTE Name'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The names of the CTEs some node of the plan scans. */
function scannedCtes(node: PlanNode, into = new Set<string>()): Set<string> {
  if (node['CTE Name']) into.add(node['CTE Name']);
  for (const child of node.Plans ?? []) scannedCtes(child, into);
  return into;
}

const buffersOf = (node: PlanNode) => (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);

/**
 * The statement's shared buffers: the root's, plus those of each data-modifying CTE no node scans
 * (PostgreSQL runs those after the root has finished, so the root's figure leaves them out: an
 * update's upsert, whose rows nobody selects, would otherwise not count).
 */
function statementBuffers(root: PlanNode): number {
  const scanned = scannedCtes(root);
  const unscanned = (root.Plans ?? []).filter(
    (child) => child['Node Type'] === 'ModifyTable' && !scanned.has((child['Subplan Name'] ?? '').replace(/^CTE /, '')),
  );
  return buffersOf(root) + unscanned.reduce((sum, child) => sum + buffersOf(child), 0);
}

function shapeOf(node: PlanNode): string {
  const on = node['Index Name'] ?? node['Relation Name'];
  const own = on ? `${node['Node Type']}(${on})` : node['Node Type'];
  return node.Plans?.length ? `${own}[${node.Plans.map(shapeOf).join(', ')}]` : own;
}

/** A value as PostgreSQL reads it in text form, as pg sends it (a JS array as an array literal, a Date in ISO form). */
function asText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map((e) => (e === null ? 'NULL' : `"${asText(e).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}`;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/** A statement's values as SQL literals, for EXECUTE. */
function literals(client: pg.Client, values: unknown[]): string {
  return values.map((value) => (value === null || value === undefined ? 'null' : client.escapeLiteral(asText(value)))).join(', ');
}

const preparedForExplain = new WeakMap<pg.Client, Map<string, string>>();

/**
 * One EXPLAIN (ANALYZE, BUFFERS) of the statement (a write's in a transaction rolled back), planned
 * the way Daybook's named statement ends up planned (`generic`: PostgreSQL's generic plan, the
 * usual case after five runs; else a custom plan for these values). An unnamed statement with
 * parameters is always planned for its values, so the generic plan is explained through a
 * PREPARE of the text and EXPLAIN EXECUTE of its values as literals.
 */
export async function explainOnce(client: pg.Client, statement: Statement, write: boolean, generic: boolean): Promise<ExplainFigures> {
  let text = `explain (analyze, buffers, format json) ${statement.text}`;
  let values = statement.values;
  if (generic && values.length > 0) {
    const known = preparedForExplain.get(client) ?? new Map<string, string>();
    preparedForExplain.set(client, known);
    let name = known.get(statement.text);
    if (!name) {
      name = `explained_${known.size}`;
      await client.query(`prepare ${name} as ${statement.text}`);
      known.set(statement.text, name);
    }
    text = `explain (analyze, buffers, format json) execute ${name}(${literals(client, values)})`;
    values = [];
  }
  await client.query('begin');
  try {
    await client.query(`set local plan_cache_mode = ${generic ? 'force_generic_plan' : 'force_custom_plan'}`);
    const result = await client.query<{
      'QUERY PLAN': Array<{ Plan: PlanNode; 'Planning Time': number; 'Execution Time': number; Triggers?: Array<{ Time: number }> }>;
    }>(text, values);
    const top = result.rows[0]['QUERY PLAN'][0];
    return {
      planningMs: top['Planning Time'],
      executionMs: top['Execution Time'],
      buffers: statementBuffers(top.Plan),
      shape: shapeOf(top.Plan),
      triggerMs: (top.Triggers ?? []).reduce((sum, trigger) => sum + trigger.Time, 0),
    };
  } finally {
    // A read's transaction ends as it began (its count kept); a write's is rolled back.
    await client.query(write ? 'rollback' : 'commit');
  }
}

/** A named prepared statement of the text (the name a hash of it, as Daybook names its own). */
function named(statement: Statement): pg.QueryConfig {
  return { name: `cmp_${crypto.createHash('sha1').update(statement.text).digest('base64url').slice(0, 20)}`, text: statement.text, values: statement.values };
}

export interface LoopFigures {
  /** The backend's CPU per execution, ms. */
  cpuMs: number;
  /** The client's wall clock per execution (round trip included), ms. */
  wallMs: number;
  /** How the named statement was planned (pg_prepared_statements). */
  plans: string;
  /** Whether it ended on PostgreSQL's generic plan. */
  generic: boolean;
}

/** `count` executions of the statement as a named prepared statement; the backend's CPU and the wall clock per execution. */
export async function loop(client: pg.Client, pid: number, statement: Statement, write: boolean, count: number): Promise<LoopFigures> {
  const config = named(statement);
  const startCpu = backendCpuMs(pid);
  const startWall = performance.now();
  for (let i = 0; i < count; i++) {
    if (write) await client.query('begin');
    await client.query(config);
    if (write) await client.query('rollback');
  }
  const wallMs = (performance.now() - startWall) / count;
  const cpuMs = (backendCpuMs(pid) - startCpu) / count;
  const found = await client.query<{ generic_plans: string; custom_plans: string }>(
    'select generic_plans, custom_plans from pg_prepared_statements where name = $1',
    [config.name],
  );
  const [generic, custom] = found.rows[0] ? [Number(found.rows[0].generic_plans), Number(found.rows[0].custom_plans)] : [0, 0];
  return { cpuMs, wallMs, plans: `${generic} generic / ${custom} custom`, generic: generic > custom };
}

/** The backend's CPU per empty transaction (`begin`, `rollback`), taken off a write's loop. */
export async function transactionCpuMs(client: pg.Client, pid: number, count: number): Promise<number> {
  const start = backendCpuMs(pid);
  for (let i = 0; i < count; i++) {
    await client.query('begin');
    await client.query('rollback');
  }
  return (backendCpuMs(pid) - start) / count;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The statement triggers that mark a person's writes for the replicas (migration 20261127140001_person_writes). */
const PERSON_TABLES = ['attributes', 'attribute_values', 'attribute_services', 'averages', 'correlations', 'insights', 'derived_weeks'];

/** Turns the replicas' person_writes triggers off (`on` false) or on again. */
export async function personWriteMarks(client: pg.Client, on: boolean): Promise<void> {
  for (const table of PERSON_TABLES) {
    for (const event of ['insert', 'update', 'delete'])
      await client.query(`alter table ${table} ${on ? 'enable' : 'disable'} trigger ${table}_${event}_person_writes`);
  }
}
