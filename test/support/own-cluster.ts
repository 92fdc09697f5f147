/**
 * A PostgreSQL cluster of one test's own, to stop and start at will (database trouble, crashes).
 * The compiled src/db/embedded.js starts it in a short-lived node process, so that no process of
 * the test holds it: the postmaster outlives that process and is stopped here by its pid (SIGINT:
 * PostgreSQL's fast shutdown), as a crash or an operator would stop it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/paths';
import { isAlive } from '../../src/db/embedded';

export interface OwnCluster {
  /** URL of `database` on the cluster. */
  url: string;
  adminUrl: string;
  /** Fast shutdown; resolves when the postmaster has exited. The data stays. */
  stop(): Promise<void>;
}

const START = `
const { startEmbeddedPostgres } = require(process.argv[1]);
startEmbeddedPostgres(JSON.parse(process.argv[2])).then(
  (db) => { process.stdout.write(JSON.stringify({ url: db.url, adminUrl: db.adminUrl })); process.exit(0); },
  (error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); },
);`;

/** Starts (initialising on first use) the cluster in `dir` on `port`, with `database` created. */
export async function startOwnCluster(options: { dir: string; port: number; database: string }): Promise<OwnCluster> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', START, path.join(PROJECT_ROOT, 'dist/src/db/embedded.js'), JSON.stringify(options)], {
    timeout: 60_000,
  });
  const { url, adminUrl } = JSON.parse(stdout) as { url: string; adminUrl: string };
  const pidFile = path.join(options.dir, 'postmaster.pid');
  return {
    url,
    adminUrl,
    async stop() {
      if (!fs.existsSync(pidFile)) return;
      const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (!(pid > 0) || !isAlive(pid)) return;
      process.kill(pid, 'SIGINT');
      for (let waited = 0; isAlive(pid); waited += 50) {
        if (waited > 30_000) throw new Error(`PostgreSQL (pid ${pid}) did not stop`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
