/**
 * EXPLAIN (ANALYZE, BUFFERS) of the read statements on a loaded bench dataset, for one of the
 * bench users: `node dist/test/bench/explain.js [--users 1000] [--user-index N]` (after a bench run
 * has loaded `daybook_bench_<users>`; uses DATABASE_URL's server when set, else the bench's
 * embedded cluster).
 */
import { openBenchServer, withClient } from './database';
import { readStatements } from './baseline-queries';

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
      const today = (await client.query<{ d: string }>('select max(date)::text as d from attribute_values where user_id = $1', [userId])).rows[0].d;
      for (const statement of readStatements(userId, today, new Date())) {
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
