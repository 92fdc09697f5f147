/**
 * `npm run bench:import`: how fast and how small an Apple Health import is (issue 33, item 7).
 *
 * 1. Generates an export of at least 2 million records (apple-export.ts: several sources, two
 *    units, offsets changing at daylight saving) as export.xml and as export.zip, in a folder under
 *    the OS temp dir (kept between runs for the same record count; --fresh makes it again).
 * 2. Reads each through `openAppleHealth` in a child process of its own, so that the peak RSS
 *    measured (the kernel's maxrss of that process) is the import's alone: records per second
 *    parsed and aggregated into day values, and the peak RSS.
 * 3. Imports export.zip end to end (bench-import-apply.ts: read, check, apply in batches through
 *    the import engine into a fresh person on an embedded PostgreSQL), in a child process too.
 * 4. Estimates the wait for a typical 5-year export from the measured rate.
 *
 * Options: --records N (2000000), --dir D, --fresh, --no-apply, --batch-size N (the imports' default).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAppleHealth } from '../../src/domain/imports/apple-health';
import { writeAppleExport } from './apple-export';
import { applyOne, type ApplyFigures } from './bench-import-apply';

interface ReadFigures {
  file: string;
  fileMB: number;
  records: number;
  values: number;
  columns: number;
  seconds: number;
  /** CPU time of the process (user + system): on a busy machine, what the work cost. */
  cpuSeconds: number;
  recordsPerSecond: number;
  recordsPerCpuSecond: number;
  peakRssMB: number;
}

/** A typical 5-year export of someone with a watch (docs/apple-health.md, "Speed"): records. */
const TYPICAL_FIVE_YEARS = 5_000_000;

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

/** The child: reads one file and prints its figures as JSON. */
async function readOne(file: string): Promise<void> {
  const started = process.hrtime.bigint();
  const reader = await openAppleHealth(file);
  let values = 0;
  for await (const _ of reader.values()) values += 1;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage();
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const records = Number(arg('records', '0'));
  const figures: ReadFigures = {
    file: path.basename(file),
    fileMB: statSync(file).size / 2 ** 20,
    records,
    values,
    columns: reader.columns.length,
    seconds,
    cpuSeconds,
    recordsPerSecond: records / seconds,
    recordsPerCpuSecond: records / cpuSeconds,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(JSON.stringify(figures) + '\n');
}

async function main(): Promise<void> {
  const records = Number(arg('records', '2000000'));
  const dir = arg('dir', path.join(os.tmpdir(), 'daybook-bench-import'));
  const marker = path.join(dir, 'records.json');
  if (process.argv.includes('--fresh')) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const xml = path.join(dir, 'export.xml');
  const zip = path.join(dir, 'export.zip');
  let written = records;
  const have = existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as { asked: number; written: number }) : undefined;
  if (have?.asked === records && existsSync(xml) && existsSync(zip)) written = have.written;
  else {
    for (const file of [xml, zip]) {
      const t = Date.now();
      let lastTenth = -1;
      await writeAppleExport(file, { records }, (n) => {
        written = n;
        const tenth = Math.floor((n / records) * 10);
        if (tenth !== lastTenth) process.stdout.write(`  generating ${path.basename(file)}: ${n.toLocaleString('en')} records\n`);
        lastTenth = tenth;
      });
      process.stdout.write(`generated ${file} (${(statSync(file).size / 2 ** 20).toFixed(0)} MB) in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
    }
    writeFileSync(marker, JSON.stringify({ asked: records, written }));
  }

  const child = <T>(mode: string, file: string): T => {
    const batchSize = arg('batch-size', '');
    const args = [__filename, mode, file, '--records', String(written), ...(batchSize ? ['--batch-size', batchSize] : [])];
    const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
    return JSON.parse(out.trim().split('\n').pop() as string) as T;
  };
  const loadBefore = os.loadavg()[0];
  const figures = [xml, zip].map((file) => child<ReadFigures>('--child', file));
  const apply = process.argv.includes('--no-apply') ? undefined : child<ApplyFigures>('--apply', zip);
  // The machine's load beside the figures: on a shared machine other work moves them 15-50 %.
  const load = `load average ${loadBefore.toFixed(2)} before, ${os.loadavg()[0].toFixed(2)} after (1 min)`;
  const lines = [
    `Apple Health import: ${written.toLocaleString('en')} records, ${os.cpus().length} cores, ${load}`,
    '',
    '| file | size | read + aggregate | CPU | records/s | records per CPU s | day values | columns | peak RSS |',
    '|---|---|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.file} | ${f.fileMB.toFixed(0)} MB | ${f.seconds.toFixed(1)} s | ${f.cpuSeconds.toFixed(1)} s | ${rate(f.recordsPerSecond)} | ${rate(f.recordsPerCpuSecond)} | ${f.values.toLocaleString('en')} | ${f.columns} | ${f.peakRssMB.toFixed(0)} MB |`,
    ),
  ];
  if (apply !== undefined) {
    lines.push(
      '',
      'End to end (export.zip read, checked and applied through runImport into a fresh person):',
      '',
      '| read + aggregate | check + apply | total | CPU (this process) | records/s | days added | batches | peak RSS |',
      '|---|---|---|---|---|---|---|---|',
      `| ${apply.readSeconds.toFixed(1)} s | ${apply.applySeconds.toFixed(1)} s | ${apply.seconds.toFixed(1)} s | ${apply.cpuSeconds.toFixed(1)} s | ${rate(apply.recordsPerSecond)} | ${apply.added.toLocaleString('en')} | ${apply.batches} | ${apply.peakRssMB.toFixed(0)} MB |`,
    );
  }
  const endToEnd = apply?.recordsPerSecond ?? figures[1].recordsPerSecond;
  lines.push(
    '',
    `A typical 5-year export (~${TYPICAL_FIVE_YEARS.toLocaleString('en')} records) at the zip's ${apply ? 'end-to-end ' : ''}rate: about ${Math.ceil(TYPICAL_FIVE_YEARS / endToEnd)} s.`,
  );
  process.stdout.write(lines.join('\n') + '\n');
}

const rate = (n: number): string => Math.round(n).toLocaleString('en');

async function applyChild(file: string): Promise<void> {
  const batchSize = arg('batch-size', '');
  process.stdout.write(JSON.stringify(await applyOne(file, Number(arg('records', '0')), batchSize ? Number(batchSize) : undefined)) + '\n');
}

const childFile = process.argv.indexOf('--child');
const applyFile = process.argv.indexOf('--apply');
(childFile > 0 ? readOne(process.argv[childFile + 1]) : applyFile > 0 ? applyChild(process.argv[applyFile + 1]) : main()).catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
