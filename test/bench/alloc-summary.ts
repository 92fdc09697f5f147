/**
 * Summarises an allocation profile written by `npm run bench -- --alloc-prof` (alloc-sampler.ts):
 * the bytes allocated, by nearest frame of our own code (a file under dist/src or dist/test: a
 * library's allocations count where our code called it) and by the function that allocated.
 *
 *   node dist/test/bench/alloc-summary.js <file.heapprofile> [--requests N] [--top N]
 *
 * With --requests (the requests the server answered while it ran: the bench's report gives the
 * rate, and a run lasts its warm-up, opening and rounds) the figures are KB a request, else KB.
 * V8 attributes an inlined function's allocations to the function it was inlined into.
 */
import fs from 'node:fs';
import { arg } from './micro-harness';
import { isOwnCode } from './profile-frames';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** A frame as `function file:line`, the file relative to dist/ or node_modules/. */
function frameLabel(frame: HeapNode['callFrame']): string {
  const file = frame.url.replace(/^.*\/(dist|node_modules)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

function add(totals: Map<string, number>, key: string, bytes: number): void {
  totals.set(key, (totals.get(key) ?? 0) + bytes);
}

function main(): void {
  const file = process.argv[2];
  if (!file || file.startsWith('--')) throw new Error('usage: alloc-summary.js <file.heapprofile> [--requests N] [--top N]');
  const head = (JSON.parse(fs.readFileSync(file, 'utf8')) as { head: HeapNode }).head;
  const requests = Number(arg('requests', '0'));
  const top = Number(arg('top', '25'));
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  // Depth first with an explicit stack: a deep profile would overflow recursion.
  const pending: Array<{ node: HeapNode; owner: string }> = [{ node: head, owner: '(no own frame)' }];
  while (pending.length > 0) {
    const { node, owner: above } = pending.pop()!;
    const label = frameLabel(node.callFrame);
    const owner = isOwnCode(node.callFrame.url) ? label : above;
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(byOwner, owner, node.selfSize);
      add(byFunction, label, node.selfSize);
    }
    for (const child of node.children) pending.push({ node: child, owner });
  }
  const unit = requests > 0 ? 'KB a request' : 'KB';
  const kb = (bytes: number) => (bytes / 1024 / (requests > 0 ? requests : 1)).toFixed(2).padStart(10);
  const share = (bytes: number) => `${((100 * bytes) / total).toFixed(1).padStart(5)} %`;
  const list = (title: string, totals: Map<string, number>) => {
    console.log(`\n${title} (${unit}, share)`);
    for (const [key, bytes] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${kb(bytes)}  ${share(bytes)}  ${key}`);
  };
  console.log(`${file}: ${kb(total).trim()} ${unit} allocated`);
  list('By nearest own frame', byOwner);
  list('By allocating function', byFunction);
}

main();
