/**
 * Loaded into a server under test with `--require` (`npm run bench -- --alloc-prof`): V8's sampling
 * heap profiler over the whole run, counting every sampled allocation, the ones the young and the
 * old generation's collections freed too. (`node --heap-prof` keeps only the objects still alive
 * when it stops, which leaves out what a request allocates and drops: the garbage the scavenger
 * pays for; docs/request-path.md, "Issue 35, eleventh stop".) The profile is written when the
 * process exits (the bench stops its servers with SIGTERM) as `<role>-<pid>.heapprofile` in
 * BENCH_ALLOC_PROFILE_DIR; `alloc-summary.js` reads it.
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';

/** A sample every 4 KB allocated on average: a few dozen a request of the bench's writes. */
const SAMPLING_INTERVAL_BYTES = 4096;

const dir = process.env.BENCH_ALLOC_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  const failed = (step: string) => (error: Error | null) => {
    if (error) fs.writeSync(2, `alloc-sampler: ${step} failed: ${error.message}\n`);
  };
  session.post('HeapProfiler.enable', failed('enable'));
  session.post(
    'HeapProfiler.startSampling',
    { samplingInterval: SAMPLING_INTERVAL_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true },
    failed('start'),
  );
  // A session on the process's own thread answers synchronously, so the profile is written before the exit.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) return failed('stop')(error);
      const role = path.basename(process.argv[1] ?? 'node', '.js');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${role}-${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
