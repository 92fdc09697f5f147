/**
 * The statement layer (src/db/sql.ts, docs/statements.md) and the request's database
 * (src/db/database.ts): values bound where they appear, fragments nested, the same text for the
 * same shape, and a guard that no statement of a request can run without.
 */
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../support/app';
import { empty, fragment, inTransaction, join, knexRaw, raw, rows, sql, statementName } from '../../src/db/sql';
import { guardedDatabase, poolDatabase, type FirstStatementGuard, type PersonReads } from '../../src/db/database';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('a statement', () => {
  test('binds each value where it appears, through nested fragments, as $n for pg and ? for knex', () => {
    const visible = (groups: string[]) => sql`a.group_name = any(${groups}::text[])`;
    const statement = sql`select a.id from attributes a where a.user_id = ${7} and ${visible(['mood'])} and a.name = ${'steps'}`;
    expect(statement.text).toBe('select a.id from attributes a where a.user_id = $1 and a.group_name = any($2::text[]) and a.name = $3');
    expect(statement.values).toEqual([7, ['mood'], 'steps']);
    expect(knexRaw(statement)).toEqual([
      'select a.id from attributes a where a.user_id = ? and a.group_name = any(?::text[]) and a.name = ?',
      [7, ['mood'], 'steps'],
    ]);
  });

  test('the same shape has the same text and statement name whatever its values; another shape another', () => {
    const shape = (name: string | undefined) => sql`select 1 from attributes where user_id = ${1} ${name === undefined ? empty : sql`and name = ${name}`}`;
    expect(statementName(shape('a').text)).toBe(statementName(shape('b').text));
    expect(statementName(shape(undefined).text)).not.toBe(statementName(shape('a').text));
    expect(join([sql`a`, sql`b`]).text).toBe('a, b');
    expect(join([]).text).toBe('');
  });

  test('a value that looks like SQL is data, never text', async () => {
    const evil = "x'; drop table users; --";
    const [row] = await rows<{ same: string }>(app.db, sql`select ${evil}::text as same`);
    expect(row.same).toBe(evil);
    expect(await app.db.schema.hasTable('users')).toBe(true);
  });

  test('runs on the pool, in a transaction, and inside a knex query alike', async () => {
    const statement = sql`select ${[3, 1, 2]}::int[] as list, ${null}::text as nothing, ${raw('41 + 1')} as answer`;
    expect(await rows(app.db, statement)).toEqual([{ list: [3, 1, 2], nothing: null, answer: 42 }]);
    expect(await app.db.transaction((trx) => inTransaction(trx, statement))).toEqual([{ list: [3, 1, 2], nothing: null, answer: 42 }]);
    const viaKnex = await app.db.select(fragment(app.db, sql`${5}::int * 2 as ten`));
    expect(viaKnex).toEqual([{ ten: 10 }]);
  });
});

describe("the request's database", () => {
  /** A guard that proceeds or stops as told, and records how it was taken. */
  function testGuard(proceed: boolean): FirstStatementGuard & { taken: unknown[]; alone: number } {
    const guard = {
      taken: [] as unknown[],
      alone: 0,
      ctes: sql`guard as (select ${proceed}::boolean as guard_proceed, ${'checked'}::text as guard_mark)`,
      take(row: Record<string, unknown> | undefined) {
        guard.taken.push(row?.guard_mark);
        if (!proceed) throw new Error('stopped');
      },
      columnCount: 2,
      takeValues(values: readonly unknown[] | undefined) {
        guard.take(values && { guard_proceed: values[0], guard_mark: values[1] });
      },
      async runAlone(db: Knex) {
        guard.alone += 1;
        guard.take((await rows<Record<string, unknown>>(db, sql`with ${guard.ctes} select guard.* from guard`))[0]);
      },
    };
    return guard;
  }

  const numbers = sql`select n from generate_series(1, 3) as n order by n desc`;

  /** The texts of the statements `db` sent while `run` ran, in their order. */
  async function recordStatements(db: Knex, run: () => Promise<void>): Promise<string[]> {
    const statements: string[] = [];
    const listen = (q: { sql: string }) => statements.push(q.sql);
    db.on('query', listen);
    try {
      await run();
    } finally {
      db.removeListener('query', listen);
    }
    return statements;
  }

  test('the first read carries the guard in the same statement, keeping its order; later ones do not', async () => {
    const guard = testGuard(true);
    const db = guardedDatabase(app.db, guard);
    const statements = await recordStatements(app.db, async () => {
      expect((await db.read<{ n: number }>(numbers)).map((r) => r.n)).toEqual([3, 2, 1]);
      expect((await db.read<{ n: number }>(numbers)).map((r) => r.n)).toEqual([3, 2, 1]);
      await db.settle();
    });
    expect(guard.taken).toEqual(['checked']);
    expect(guard.alone).toBe(0);
    expect(statements).toHaveLength(2);
    expect(statements[0]).toContain('guard as (');
    expect(statements[1]).not.toContain('guard');
  });

  test('a read with no rows still takes the guard, and answers no rows', async () => {
    const guard = testGuard(true);
    expect(await guardedDatabase(app.db, guard).read(sql`select 1 where false`)).toEqual([]);
    expect(guard.taken).toEqual(['checked']);
  });

  test('a guard that stops the request makes the read throw, with no row handed out', async () => {
    const db = guardedDatabase(app.db, testGuard(false));
    await expect(db.read(numbers)).rejects.toThrow('stopped');
  });

  test('the query builder is handed out only after the guard ran alone; a write places it itself', async () => {
    const first = testGuard(true);
    const db = guardedDatabase(app.db, first);
    expect(await db.knex()).toBe(app.db);
    expect(first.alone).toBe(1);

    const second = testGuard(true);
    const placed: Array<string | undefined> = [];
    const writer = guardedDatabase(app.db, second);
    await writer.write((guard) => {
      placed.push(guard?.text);
      return sql`with ${guard ?? empty} select guard.* from guard`;
    });
    await writer.write((guard) => {
      placed.push(guard?.text);
      return sql`select 1`;
    });
    expect(placed[0]).toContain('guard as (');
    expect(placed[1]).toBeUndefined();
    expect(second.taken).toEqual(['checked']);
  });

  test('rows read as arrays keep their columns at their positions, with the guard or without', async () => {
    const pairs = sql`select n, ${'x'}::text || n as label from generate_series(1, 3) as n order by n desc`;
    const guard = testGuard(true);
    const db = guardedDatabase(app.db, guard);
    const statements = await recordStatements(app.db, async () => {
      for (let i = 0; i < 2; i++) {
        const answer = await db.readArrays(pairs);
        expect(answer.map((row) => [row[0], row[1]])).toEqual([
          [3, 'x3'],
          [2, 'x2'],
          [1, 'x1'],
        ]);
      }
    });
    expect(guard.taken).toEqual(['checked']);
    expect(statements).toHaveLength(2);
    expect(statements[0]).toContain('guard as (');
    expect(await poolDatabase(app.db).readArrays(pairs)).toEqual([
      [3, 'x3'],
      [2, 'x2'],
      [1, 'x1'],
    ]);
  });

  test("an array read on a person's replica hands out the replica's rows as arrays, in the select list's order", async () => {
    const pairs = sql`select n, ${'x'}::text || n as label from generate_series(1, 2) as n order by n desc`;
    // A replica that is the primary itself, always up to date (test/db/replica.test.ts runs real ones).
    const person: PersonReads = {
      mark: sql`select ${'mark'}::text as person_mark`,
      read: async <R>(statement: Parameters<typeof rows>[1]) => ({ mark: 'mark', rows: await rows<R>(app.db, statement) }),
      covers: (answer, mark) => answer.mark === mark,
    };
    const guard = testGuard(true);
    const expected = [
      [2, 'x2'],
      [1, 'x1'],
    ];
    expect(await guardedDatabase(app.db, guard, person).readArrays(pairs)).toEqual(expected);
    expect(guard.taken).toEqual(['checked']);
    expect(await poolDatabase(app.db, person).readArrays(pairs)).toEqual(expected);
  });

  test('an array read with no rows still takes the guard and answers none; a guard that stops makes it throw', async () => {
    const guard = testGuard(true);
    expect(await guardedDatabase(app.db, guard).readArrays(sql`select 1 where false`)).toEqual([]);
    expect(guard.taken).toEqual(['checked']);
    await expect(guardedDatabase(app.db, testGuard(false)).readArrays(numbers)).rejects.toThrow('stopped');
  });

  test('the pool has no guard', async () => {
    const db = poolDatabase(app.db);
    expect(await db.read(numbers)).toEqual([{ n: 3 }, { n: 2 }, { n: 1 }]);
    await db.write((guard) => {
      expect(guard).toBeUndefined();
      return sql`select 1`;
    });
    expect(await db.knex()).toBe(app.db);
  });
});
