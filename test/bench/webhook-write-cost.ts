/**
 * `npm run -s bench:webhook-writes`: what recording webhook events adds to a value write, measured
 * inside PostgreSQL, so that the machine's other load hardly matters (docs/webhooks.md, "What a
 * write costs now"). On the --small bench dataset (`--reuse-data` keeps one loaded), a 30-row upsert of values
 * with its value_changes rows, the shape of a batch write's statement, is run many times in a
 * server-side loop (no round trips) in a transaction that is rolled back, in three states,
 * alternating, several rounds:
 * the webhook triggers disabled (before this feature), enabled with no endpoint anywhere, and
 * enabled with an endpoint (every write records its outbox row). Each statement writes 30
 * attributes of one day, the usual shape of a sync batch: a new day (the insert path) or a day
 * that has values (the update path). Reports the median time per statement.
 * The machine's other load still shows: compare the columns of one run, not runs.
 */
import pg from 'pg';
import { openBenchServer } from './database';
import { loadDataset } from './load';
import { progressBar, say } from './progress';

const ROUNDS = 9;
const STATEMENTS_PER_CELL = 400;
const STATES = ['triggers off', 'no endpoint', 'an endpoint'] as const;
type State = (typeof STATES)[number];

const WRITE = `with written as (
    insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
    select $1, v.attribute_id, v.date, v.value_num, null, now()
      from unnest($2::bigint[], $3::date[], $4::float8[]) as v(attribute_id, date, value_num)
    on conflict (user_id, attribute_id, date)
    do update set value_num = excluded.value_num, updated_at = excluded.updated_at
    returning date
  )
  insert into value_changes (user_id, date, changed_at)
  select distinct $1::bigint, w.date, now() from written w order by 2
  on conflict (user_id, date) do update set changed_at = excluded.changed_at`;

async function setState(client: pg.Client, state: State): Promise<void> {
  const triggers = state === 'triggers off' ? 'disable' : 'enable';
  await client.query(`alter table attribute_values ${triggers} trigger attribute_values_webhook_insert, ${triggers} trigger attribute_values_webhook_update`);
  // The bench database's own: `--webhooks` runs leave an endpoint there too.
  await client.query('delete from webhook_endpoints');
  if (state === 'an endpoint') {
    await client.query(`insert into webhook_endpoints (public_id, client_pk, url, events, secret)
      select 'ep_write_cost', id, 'https://bench.invalid/hooks', '{values.updated}', 'whsec_AAAA' from oauth_clients order by id limit 1`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const server = await openBenchServer(process.env.DATABASE_URL);
  try {
    const endDate = new Date().toISOString().slice(0, 10);
    const load = await loadDataset(server, { users: 100, attributes: 40, days: 365, seed: 1, endDate }, process.argv.includes('--reuse-data'));
    const client = new pg.Client({ connectionString: server.urlOf(load.database) });
    await client.connect();
    try {
      const { rows: people } = await client.query<{ user_id: string; ids: string[]; last: string }>(
        `select user_id, (array_agg(id order by id))[1:30] as ids, (select max(date)::text from attribute_values v where v.user_id = a.user_id) as last
           from attributes a where value_type <> 2 group by user_id having count(*) >= 30 order by user_id limit 50`,
      );
      if (people.length === 0) throw new Error('The dataset has no person with 30 numeric attributes.');
      const times = new Map<string, number[]>();
      const bar = progressBar('cells', ROUNDS * STATES.length * 2);
      for (let round = 0; round < ROUNDS; round++) {
        for (const state of STATES) {
          await setState(client, state);
          for (const path of ['insert', 'update'] as const) {
            const person = people[round % people.length];
            // STATEMENTS_PER_CELL writes in one server-side loop (no round trips, no EXPLAIN
            // overhead), each on other days: new days (insert) or days with a value (update).
            const firstDay = path === 'insert' ? "'2099-01-01'::date + i" : `'${person.last}'::date - i`;
            const write = WRITE.replaceAll('$1', person.user_id)
              .replace('$2::bigint[]', `'{${person.ids.join(',')}}'::bigint[]`)
              .replace('$3::date[]', `array_fill(${firstDay}, array[${person.ids.length}])`)
              .replace('$4::float8[]', `array_fill((i + 1)::float8, array[${person.ids.length}])`);
            await client.query('begin');
            const started = performance.now();
            await client.query(`do $do$ begin for i in 1..${STATEMENTS_PER_CELL} loop ${write}; end loop; end $do$`);
            const ms = (performance.now() - started) / STATEMENTS_PER_CELL;
            await client.query('rollback');
            const key = `${path}|${state}`;
            (times.get(key) ?? times.set(key, []).get(key)!).push(ms);
            bar.increment();
          }
        }
      }
      bar.stop();
      await setState(client, 'no endpoint');
      say(
        `Server-side time of one 30-row value write statement, ms (median over ${ROUNDS} rounds of ${STATEMENTS_PER_CELL} statements in a server-side loop):`,
      );
      say('| Path | ' + STATES.join(' | ') + ' |');
      for (const path of ['insert', 'update']) {
        say(
          `| ${path} (30 attributes of ${path === 'insert' ? 'a new day' : 'a day with values'}) | ${STATES.map((s) => median(times.get(`${path}|${s}`)!).toFixed(3)).join(' | ')} |`,
        );
      }
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
