/**
 * What must be stopped if the bench is interrupted (Ctrl-C, SIGTERM): the servers under test and
 * the embedded PostgreSQL, which are child processes and would otherwise outlive it.
 */
const tasks = new Set<() => Promise<void>>();

/** Registers `stop` to run on interruption; returns a function that unregisters it. */
export function onInterrupt(stop: () => Promise<void>): () => void {
  tasks.add(stop);
  return () => tasks.delete(stop);
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the servers and PostgreSQL…\n`);
    // Servers first (registered last), the database server last.
    void Promise.allSettled([...tasks].reverse().map((stop) => stop())).then(() => process.exit(130));
  });
}
