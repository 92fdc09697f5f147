/**
 * Summarises a V8 CPU profile (`--cpu-prof`, written by `npm run bench -- --cpu-prof`): where the
 * time went by package or source folder, and the functions with the most self and total time.
 *
 *   node dist/test/bench/profile-summary.js <file.cpuprofile> [--top N] [--after FUNCTION] [--last SECONDS] [--match TEXT]
 *     [--owners [--by-function]] [--under FILE]
 *
 * Each line gives its share of all samples and of the busy ones (every sample but `(idle)`): the
 * busy share is the one to compare between runs, as idle time grows with a slower load generator.
 * --match lists the self and total time of every function whose name or file contains TEXT.
 *
 * --after drops the samples before the first one running FUNCTION (e.g. `handleRequest`, to leave
 * the start-up out). --last keeps only the profile's last SECONDS (the last scenario of a bench run
 * of several: the bench checks every scenario first, so no function marks where the last one starts).
 *
 * --owners charges every busy sample to its nearest frame of our own code (a file under dist/src
 * or dist/test; with --by-function, that frame's function), so a library's time counts where our
 * code called it; socket writes (`writev`) and garbage collection are shown apart, as both servers
 * pay them alike. --under FILE lists the self time of the functions among the samples charged to
 * FILE (e.g. `src/db/sql.js`: pg's conversion of the parameters under `rows`).
 */
import fs from 'node:fs';
import { isOwnCode } from './profile-frames';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** The index of the first sample within the profile's last `ms` milliseconds. */
function firstOfLast(profile: Profile, ms: number): number {
  let elapsed = 0;
  for (let i = profile.timeDeltas.length - 1; i >= 0; i--) {
    elapsed += profile.timeDeltas[i] / 1000;
    if (elapsed > ms) return i + 1;
  }
  return 0;
}

/** The package (node_modules/<name>), our source folder (src/<folder>) or Node's internals a frame belongs to. */
function area(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/(src|test)\/([^/]+)(\/[^/]+)?/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}${ours[3] && !ours[3].endsWith('.js') ? ours[3] : ''}`;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?([^/]+).*/, 'node:$2');
  return url;
}

/** The nearest frame of our own compiled code (dist/src, dist/test) at or above a sample's node. */
function ownFrame(id: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): ProfileNode | undefined {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = byId.get(at)!;
    if (isOwnCode(node.callFrame.url)) return node;
  }
  return undefined;
}

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('Usage: profile-summary <file.cpuprofile> [--top N]');
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 25;
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const afterIndex = process.argv.indexOf('--after');
  const after = afterIndex > 0 ? process.argv[afterIndex + 1] : undefined;
  const runs = (id: number, name: string): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (byId.get(at)!.callFrame.functionName === name) return true;
    return false;
  };
  const lastIndex = process.argv.indexOf('--last');
  const lastMs = lastIndex > 0 ? Number(process.argv[lastIndex + 1]) * 1000 : undefined;
  const firstAfter = after ? profile.samples.findIndex((id) => runs(id, after)) : 0;
  const first = lastMs === undefined ? firstAfter : Math.max(firstAfter, firstOfLast(profile, lastMs));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (i >= Math.max(0, first)) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const key = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;

  const areas = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const totalByFunction = new Map<string, number>();
  const walk = (id: number, open: Set<string>): number => {
    const node = byId.get(id)!;
    const own = self.get(id) ?? 0;
    areas.set(area(node.callFrame.url, node.callFrame.functionName), (areas.get(area(node.callFrame.url, node.callFrame.functionName)) ?? 0) + own);
    const k = key(node);
    selfByFunction.set(k, (selfByFunction.get(k) ?? 0) + own);
    const nested = open.has(k);
    if (!nested) open.add(k);
    let inclusive = own;
    for (const child of node.children ?? []) inclusive += walk(child, open);
    if (!nested) {
      open.delete(k);
      totalByFunction.set(k, (totalByFunction.get(k) ?? 0) + inclusive);
    }
    return inclusive;
  };
  walk(profile.nodes[0].id, new Set());

  const busy = total - (areas.get('(idle)') ?? 0);
  const percent = (value: number, of: number) => `${((value / of) * 100).toFixed(1).padStart(5)} %`;
  const show = (title: string, entries: Map<string, number>, n: number) => {
    process.stdout.write(`\n${title} (ms, share of all samples, share of busy ones)\n`);
    for (const [name, value] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      process.stdout.write(`${value.toFixed(0).padStart(8)} ms ${percent(value, total)} ${percent(value, busy)}  ${name}\n`);
    }
  };
  process.stdout.write(`${file}: ${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms busy\n`);
  const matchIndex = process.argv.indexOf('--match');
  if (matchIndex > 0) {
    const text = process.argv[matchIndex + 1];
    const matching = (entries: Map<string, number>) => new Map([...entries].filter(([name]) => name.includes(text)));
    show(`Self time of functions matching "${text}"`, matching(selfByFunction), top);
    show(`Total time of functions matching "${text}"`, matching(totalByFunction), top);
    return;
  }
  const ownersIndex = process.argv.indexOf('--owners');
  const underIndex = process.argv.indexOf('--under');
  if (ownersIndex > 0 || underIndex > 0) {
    const under = underIndex > 0 ? process.argv[underIndex + 1] : undefined;
    const byFunction = process.argv.includes('--by-function');
    const charged = new Map<string, number>();
    profile.samples.forEach((id, i) => {
      const node = byId.get(id)!;
      if (i < Math.max(0, first) || node.callFrame.functionName === '(idle)') return;
      const owner = ownFrame(id, byId, parent);
      const ownerName = owner && `${owner.callFrame.url.replace(/^.*\/dist\//, '')}${byFunction ? ` ${owner.callFrame.functionName || '(anonymous)'}` : ''}`;
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      let name: string;
      if (under) {
        if (!owner || !owner.callFrame.url.endsWith(`/dist/${under}`)) return;
        name = key(node);
      } else if (node.callFrame.functionName === 'writev') name = '(socket writes: writev)';
      else if (node.callFrame.functionName === '(garbage collector)') name = '(garbage collector)';
      else name = ownerName ?? `(no own frame) ${area(node.callFrame.url, node.callFrame.functionName)}`;
      charged.set(name, (charged.get(name) ?? 0) + ms);
    });
    show(under ? `Self time of the functions charged to ${under}` : 'Busy time by nearest own frame', charged, top);
    return;
  }
  show('Self time by area', areas, top);
  show('Self time by function', selfByFunction, top);
  show('Total time by function', totalByFunction, top);
}

main();
