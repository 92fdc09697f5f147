/**
 * `npm run bench:sql -- --plan-survey`: for how many of the dataset's people PostgreSQL keeps a
 * generic plan of each read, and for how many it plans the statement again at every call
 * (docs/request-path.md, "Issue 35, third stop", "The SQL"). PostgreSQL plans a named statement five
 * times for its values, then keeps the generic plan only when that plan's estimated cost is not
 * above the custom plans' average (plus an allowance for planning): a person whose data is smaller
 * than the average's gets custom plans for ever. The survey runs each read's data part (Daybook's
 * statement without the guard, whose estimates do not depend on the person) seven times per person
 * as a named statement of its own, and reads `pg_prepared_statements`.
 */
import type pg from 'pg';
import type { Captured, Statement } from './sql-capture';

/** The number of the guard's own values before the read's, in a guarded read (recheck and count). */
const GUARD_VALUES = 9;

/** The data part of a guarded read (db/database.ts guardedRead), its values renumbered from $1. */
function readAlone(statement: Statement): Statement {
  // Rows as objects or as arrays (guardedRead, guardedReadArrays): the read follows the first ` from (` after `guard_found`.
  const open = ' from (';
  const start = statement.text.indexOf(open, statement.text.indexOf('guard_found')) + open.length;
  const end = statement.text.lastIndexOf(') as r)');
  const text = statement.text.slice(start, end).replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) - GUARD_VALUES}`);
  return { text, values: statement.values.slice(GUARD_VALUES) };
}

/** Prints, per read, how many people's seventh call ran a generic plan. `userId`: the person the statements were captured for. */
export async function planSurvey(client: pg.Client, captured: Captured[], userId: number): Promise<void> {
  const people = (await client.query<{ id: string }>("select id from users where username like 'bench\\_%' and username <> 'bench_owner' order by id")).rows;
  process.stdout.write(`\n### Plans kept per person (${people.length} people)\n\n| read | generic plan | planned at every call |\n|---|--:|--:|\n`);
  let made = 0;
  for (const taken of captured) {
    if (taken.steady.length !== 1 || !taken.steady[0].text.includes('guard_found')) continue; // the guarded reads only
    const read = readAlone(taken.steady[0]);
    let generic = 0;
    for (const person of people) {
      const name = `survey_${made++}`;
      const values = read.values.map((value) => (value === userId ? Number(person.id) : value));
      for (let call = 0; call < 7; call++) await client.query({ name, text: read.text, values });
      const found = await client.query<{ generic_plans: string }>('select generic_plans from pg_prepared_statements where name = $1', [name]);
      if (Number(found.rows[0]?.generic_plans) > 0) generic++;
    }
    process.stdout.write(`| ${taken.scenario} | ${generic} | ${people.length - generic} |\n`);
  }
}
