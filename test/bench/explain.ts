/**
 * EXPLAIN (ANALYZE, BUFFERS) of the baseline's read statements (token check, count and data in one)
 * on a loaded bench dataset, for one of the bench users: `node dist/test/bench/explain.js
 * [--users 1000] [--user-index N]` (after a bench run has loaded `daybook_bench_<users>`; uses
 * DATABASE_URL's server when set, else the bench's embedded cluster). It issues the bench service
 * a token for that user, as the bench does (fixtures.ts), and each statement counts one request.
 */
import { createKnex } from '../../src/db/knex';
import { issueTokens } from '../../src/domain/apps-and-grants/tokens';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { openBenchServer, withClient } from './database';
import { readStatements } from './baseline-queries';
import { CLIENT_NAME } from './fixtures';
import { BENCH_RATE_LIMIT } from './services';

/** A token of the bench service for the user (the bench has run, so the service exists). */
async function tokenOf(url: string, userId: number, now: Date): Promise<string> {
  const db = createKnex(url, { pool: { min: 0, max: 1 } });
  try {
    const client = await db('oauth_clients').where({ name: CLIENT_NAME }).first('id');
    if (!client) throw new Error(`No "${CLIENT_NAME}" in this database: run the bench on it first.`);
    return (await issueTokens(db, { userId, clientPk: Number(client.id), scopes: [...V2_SCOPE_NAMES], now })).access_token;
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const users = arg('users', 1000);
  const server = await openBenchServer(process.env.DATABASE_URL);
  try {
    await withClient(server.urlOf(`daybook_bench_${users}`), async (client) => {
      const ids = (await client.query<{ id: string }>("select id from users where username like 'bench\\_%' and username <> 'bench_owner' order by id")).rows;
      const userId = Number(ids[Math.min(ids.length - 1, arg('user-index', Math.floor(ids.length / 2)))].id);
      const now = new Date();
      const token = await tokenOf(server.urlOf(`daybook_bench_${users}`), userId, now);
      for (const statement of readStatements(token, now, BENCH_RATE_LIMIT)) {
        const plan = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${statement.text}`, statement.values);
        process.stdout.write(`\n=== ${statement.name} (user ${userId})\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
      }
    });
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
