/**
 * Turns the measurements into figures: medians and ranges over rounds, ratios Daybook / baseline
 * (and Daybook / bare baseline with `--bare-baseline`),
 * the targets of this machine met or missed, and the Markdown tables (printed and written beside
 * the JSON under test/bench/results/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import type { CpuFigures } from './resources';
import type { DriveResult } from './drive';

/** The servers: Daybook, the baseline (authenticates and counts) and the bare baseline (neither; --bare-baseline). */
export type Target = 'daybook' | 'baseline' | 'bare';

export interface Sample {
  round: number;
  drive: DriveResult;
  cpu: CpuFigures;
  /** Peak RSS of the server under test during this measurement (bytes). */
  peakRss: number;
}

export interface Cell {
  scenario: string;
  kind: 'read' | 'write';
  connections: number;
  /** Dataset users (the scale runs use other datasets). */
  users: number;
  /** Per server; empty for a server not measured. */
  samples: Record<Target, Sample[]>;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface TargetSummary {
  rps: Spread;
  p50: Spread;
  p99: Spread;
  p999: Spread;
  errors: number;
  cpu: { service: number; postgres: number; loadGenerator: number; others: number };
  peakRss: number;
}

export function spread(values: number[]): Spread {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: NaN, min: NaN, max: NaN };
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

export function summarise(samples: Sample[]): TargetSummary | undefined {
  if (samples.length === 0) return undefined;
  return {
    rps: spread(samples.map((s) => s.drive.requestsPerSecond)),
    p50: spread(samples.map((s) => s.drive.p50)),
    p99: spread(samples.map((s) => s.drive.p99)),
    p999: spread(samples.map((s) => s.drive.p999)),
    errors: samples.reduce((sum, s) => sum + s.drive.errors, 0),
    cpu: {
      service: spread(samples.map((s) => s.cpu.service)).median,
      postgres: spread(samples.map((s) => s.cpu.postgres)).median,
      loadGenerator: spread(samples.map((s) => s.cpu.loadGenerator)).median,
      others: spread(samples.map((s) => s.cpu.others)).median,
    },
    peakRss: Math.max(...samples.map((s) => s.peakRss)),
  };
}

const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en') : 'n/a');
const ms = (v: number) => (!Number.isFinite(v) ? 'n/a' : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));
const ratio = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const mb = (v: number) => (Number.isFinite(v) ? `${Math.round(v / 1e6)} MB` : 'n/a');
const pct = (v: number) => (Number.isFinite(v) ? `${Math.round(v)}` : 'n/a');
const withRange = (s: Spread, format: (v: number) => string) => `${format(s.median)} (${format(s.min)}–${format(s.max)})`;

const hasBare = (cells: Cell[]) => cells.some((c) => c.samples.bare.length > 0);

/** Markdown table of throughput and latency, Daybook against the baseline (and the bare baseline when measured). */
export function throughputTable(cells: Cell[]): string {
  const bare = hasBare(cells);
  const lines = [
    '| Request | Conns | Daybook req/s | Baseline req/s | Ratio | Daybook p50 / p99 / p99.9 ms | Baseline p50 / p99 / p99.9 ms | p99 ratio | Errors D / B |' +
      (bare ? ' Bare req/s | Ratio to bare | Bare p50 / p99 / p99.9 ms | Errors bare |' : ''),
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|' + (bare ? '---:|---:|---:|---:|' : ''),
  ];
  const latency = (s: TargetSummary | undefined) => (s ? `${ms(s.p50.median)} / ${ms(s.p99.median)} / ${ms(s.p999.median)}` : '–');
  for (const cell of cells) {
    const d = summarise(cell.samples.daybook);
    const b = summarise(cell.samples.baseline);
    const n = summarise(cell.samples.bare);
    if (!d) continue;
    lines.push(
      `| ${cell.scenario} | ${cell.connections} | ${withRange(d.rps, int)} | ${b ? withRange(b.rps, int) : '–'} | ${b ? ratio(d.rps.median / b.rps.median) : '–'} | ` +
        `${latency(d)} | ${latency(b)} | ${b ? ratio(d.p99.median / b.p99.median) : '–'} | ${d.errors} / ${b ? b.errors : '–'} |` +
        (bare ? ` ${n ? withRange(n.rps, int) : '–'} | ${n ? ratio(d.rps.median / n.rps.median) : '–'} | ${latency(n)} | ${n ? n.errors : '–'} |` : ''),
    );
  }
  return lines.join('\n');
}

/** Markdown table of CPU (percent of one core, medians) and peak RSS per measurement. */
export function resourceTable(cells: Cell[]): string {
  const bare = hasBare(cells);
  const lines = [
    '| Request | Conns | Daybook CPU % service / Postgres / load gen / other | Baseline CPU % service / Postgres / load gen / other | Daybook / baseline CPU ms per request (service + Postgres) | Peak RSS Daybook / baseline |' +
      (bare ? ' Bare CPU ms per request (service + Postgres) |' : ''),
    '|---|---:|---:|---:|---:|---:|' + (bare ? '---:|' : ''),
  ];
  for (const cell of cells) {
    const d = summarise(cell.samples.daybook);
    const b = summarise(cell.samples.baseline);
    const n = summarise(cell.samples.bare);
    if (!d) continue;
    const cpu = (s: TargetSummary) => `${pct(s.cpu.service)} / ${pct(s.cpu.postgres)} / ${pct(s.cpu.loadGenerator)} / ${pct(s.cpu.others)}`;
    const perRequest = (s: TargetSummary) => `${ms((s.cpu.service * 10) / s.rps.median)} + ${ms((s.cpu.postgres * 10) / s.rps.median)}`;
    lines.push(
      `| ${cell.scenario} | ${cell.connections} | ${cpu(d)} | ${b ? cpu(b) : '–'} | ${perRequest(d)} / ${b ? perRequest(b) : '–'} | ${mb(d.peakRss)} / ${b ? mb(b.peakRss) : '–'} |` +
        (bare ? ` ${n ? perRequest(n) : '–'} |` : ''),
    );
  }
  return lines.join('\n');
}

/** Markdown table of the scale runs: Daybook's reads on datasets of different sizes. */
export function scaleTable(cells: Cell[]): string {
  const users = [...new Set(cells.map((c) => c.users))].sort((a, b) => a - b);
  const keys = [...new Set(cells.map((c) => `${c.scenario}@${c.connections}`))];
  const lines = [
    `| Request | Conns | ${users.map((u) => `${u.toLocaleString('en')} users: req/s, p50 / p99 ms`).join(' | ')} |`,
    `|---|---:|${users.map(() => '---:').join('|')}|`,
  ];
  for (const key of keys) {
    const [scenario, connections] = key.split('@');
    const row = users.map((u) => {
      const cell = cells.find((c) => c.users === u && c.scenario === scenario && c.connections === Number(connections));
      const d = cell && summarise(cell.samples.daybook);
      return d ? `${int(d.rps.median)}, ${ms(d.p50.median)} / ${ms(d.p99.median)}` : '–';
    });
    lines.push(`| ${scenario} | ${connections} | ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

export interface TargetCheck {
  target: string;
  met: boolean;
  detail: string;
}

/**
 * The targets of issue 35 (test/bench/README.md, "Targets"): each read at >= 0.95 of the baseline's
 * req/s, update and increment at >= 0.9, acquire and create at >= 0.8, at 8 and 32 connections;
 * p99 at most 1.3 x the baseline's there; peak RSS of the service under 200 MB; zero errors.
 */
const WRITE_RATIOS: Record<string, number> = { update: 0.9, increment: 0.9, acquire: 0.8, create: 0.8 };
const READ_RATIO = 0.95;
const P99_RATIO = 1.3;
const TARGET_CONNECTIONS = [8, 32];
/** Peak RSS of the service, at most. */
const PEAK_RSS_BYTES = 200e6;

/**
 * Daybook's figure over the baseline's, round by round (the servers alternate within a round, so a
 * round's pair saw the same state of the machine): how far the ratio moves between rounds, beside
 * the ratio of the medians the targets are judged on.
 */
function roundRatios(cell: Cell, figure: (sample: Sample) => number): number[] {
  return cell.samples.daybook.flatMap((d) => {
    const b = cell.samples.baseline.find((sample) => sample.round === d.round);
    return b ? [figure(d) / figure(b)] : [];
  });
}

/** `; rounds 0.88–1.02, 2 of 3 met` for a check of round ratios against a bound. */
function roundsMet(ratios: number[], met: (r: number) => boolean): string {
  if (ratios.length < 2) return '';
  const s = spread(ratios);
  return `; rounds ${ratio(s.min)}–${ratio(s.max)}, ${ratios.filter(met).length} of ${ratios.length} met`;
}

/** The targets of the issues for this machine (reported against, not timed tests). */
export function checkTargets(cells: Cell[], overallPeakRss: number): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const both = (scenario: string, connections: number) => {
    const cell = cells.find((c) => c.scenario === scenario && c.connections === connections);
    const d = cell && summarise(cell.samples.daybook);
    const b = cell && summarise(cell.samples.baseline);
    return d && b ? { cell, d, b } : undefined;
  };
  for (const scenario of [...new Set(cells.map((c) => c.scenario))]) {
    const kind = cells.find((c) => c.scenario === scenario)!.kind;
    const need = kind === 'read' ? READ_RATIO : WRITE_RATIOS[scenario];
    if (need === undefined) continue;
    for (const connections of TARGET_CONNECTIONS) {
      const pair = both(scenario, connections);
      if (!pair) continue;
      const r = pair.d.rps.median / pair.b.rps.median;
      checks.push({
        target: `${scenario}: req/s >= ${need} x baseline at ${connections} connections`,
        met: r >= need,
        detail: `${ratio(r)} (${int(pair.d.rps.median)} vs ${int(pair.b.rps.median)}${roundsMet(
          roundRatios(pair.cell, (sample) => sample.drive.requestsPerSecond),
          (x) => x >= need,
        )})`,
      });
      const p = pair.d.p99.median / pair.b.p99.median;
      checks.push({
        target: `${scenario}: p99 <= ${P99_RATIO} x baseline at ${connections} connections (p99.9 reported)`,
        met: p <= P99_RATIO,
        detail: `${ratio(p)} (${ms(pair.d.p99.median)} vs ${ms(pair.b.p99.median)} ms; p99.9 ${ms(pair.d.p999.median)} vs ${ms(pair.b.p999.median)} ms${roundsMet(
          roundRatios(pair.cell, (sample) => sample.drive.p99),
          (x) => x <= P99_RATIO,
        )})`,
      });
    }
  }
  checks.push({ target: `Daybook peak RSS < ${mb(PEAK_RSS_BYTES)}`, met: overallPeakRss < PEAK_RSS_BYTES, detail: mb(overallPeakRss) });
  const errors = cells.reduce((sum, c) => sum + Object.values(c.samples).reduce((all, samples) => all + samples.reduce((s, x) => s + x.drive.errors, 0), 0), 0);
  checks.push({ target: 'zero errors', met: errors === 0, detail: String(errors) });
  return checks;
}

export function targetsTable(checks: TargetCheck[]): string {
  return ['| Target | Met | Measured |', '|---|---|---|', ...checks.map((c) => `| ${c.target} | ${c.met ? 'yes' : '**no**'} | ${c.detail} |`)].join('\n');
}

/**
 * The commit checked out, read from .git without running git (undefined outside a repository). In a
 * linked worktree `.git` is a file naming the worktree's own folder (HEAD), whose `commondir` names
 * the repository's (branches and packed refs).
 */
export function currentCommit(): string | undefined {
  try {
    let gitDir = path.join(PROJECT_ROOT, '.git');
    if (fs.statSync(gitDir).isFile())
      gitDir = path.resolve(
        PROJECT_ROOT,
        fs
          .readFileSync(gitDir, 'utf8')
          .replace(/^gitdir:\s*/, '')
          .trim(),
      );
    const commonFile = path.join(gitDir, 'commondir');
    const commonDir = fs.existsSync(commonFile) ? path.resolve(gitDir, fs.readFileSync(commonFile, 'utf8').trim()) : gitDir;
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice(5);
    const loose = path.join(commonDir, ref);
    if (fs.existsSync(loose)) return fs.readFileSync(loose, 'utf8').trim();
    const packed = fs
      .readFileSync(path.join(commonDir, 'packed-refs'), 'utf8')
      .split('\n')
      .find((line) => line.endsWith(` ${ref}`));
    return packed?.split(' ')[0];
  } catch {
    return undefined;
  }
}

export function machineFacts(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    cpuModel: cpus[0]?.model,
    cpus: cpus.length,
    memoryBytes: os.totalmem(),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverageAtStart: os.loadavg(),
  };
}

/** Writes the JSON and the Markdown under test/bench/results/; returns their paths. */
export function writeResults(stamp: string, json: unknown, markdown: string): { json: string; markdown: string } {
  const dir = path.join(PROJECT_ROOT, 'test', 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const files = { json: path.join(dir, `bench-${stamp}.json`), markdown: path.join(dir, `bench-${stamp}.md`) };
  fs.writeFileSync(files.json, JSON.stringify(json, null, 2) + '\n');
  fs.writeFileSync(files.markdown, markdown + '\n');
  return files;
}
