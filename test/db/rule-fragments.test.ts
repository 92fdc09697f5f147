/**
 * Each rule Daybook states in SQL is one named fragment (docs/statements.md, "Rules as fragments").
 * These tests pin what each one means, on a real PostgreSQL, against the same rule in TypeScript
 * where there is one; the last test checks that no copy of a rule's condition stands elsewhere in src/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { addAttribute, addAttributes } from '../support/seed';
import { raw, rows, sql, type Sql } from '../../src/db/sql';
import { liveToken, usableAccessToken } from '../../src/domain/apps-and-grants/tokens';
import { ableToHandle, availableServices, lastConnected } from '../../src/domain/tracking/able-services';
import { ATTRIBUTE_ORDER } from '../../src/domain/tracking/attribute-order';
import { visibleTo } from '../../src/domain/apps-and-grants/visibility';
import { countedCte, isPastLimit, QUOTA_PREFIX, quotaKey, quotaKeyOf, withinLimit } from '../../src/domain/apps-and-grants/quota';
import { dayLockKeys, dayLocks } from '../../src/domain/tracking/writes/day-locks';
import { CUSTOM_GROUP, isCustomTag, isCustomTagSql } from '../../src/domain/tracking/custom-tag';
import { localDate, localDateIn } from '../../src/domain/time';
import { BUILTIN_SERVICES } from '../../src/db/catalogue-services';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const NOW = new Date('2026-11-20T12:00:00Z');
const DAY_MS = 24 * 3600 * 1000;

/** One boolean of a fragment evaluated in a statement. */
async function holds(statement: Sql): Promise<boolean> {
  const [row] = await rows<{ holds: boolean }>(app.db, statement);
  return row.holds;
}

describe('a live token (liveToken) and a usable access token (usableAccessToken)', () => {
  const cases: Array<{ name: string; token: Record<string, Date | null>; live: boolean; usable: boolean }> = [
    { name: 'unexpired', token: {}, live: true, usable: true },
    { name: 'revoked', token: { revoked_at: NOW }, live: false, usable: false },
    { name: 'replaced by a refresh', token: { replaced_at: NOW }, live: false, usable: false },
    { name: 'access expired, refresh not', token: { access_expires_at: new Date(NOW.getTime() - 1) }, live: true, usable: false },
    {
      name: 'both expired',
      token: { access_expires_at: new Date(NOW.getTime() - 1), refresh_expires_at: new Date(NOW.getTime() - 1) },
      live: false,
      usable: false,
    },
    { name: 'expiring exactly now', token: { access_expires_at: NOW, refresh_expires_at: NOW }, live: false, usable: false },
  ];
  test.each(cases)('$name: live $live, usable $usable', async ({ token, live, usable }) => {
    const { user } = await makeUser(app);
    const { client } = await makeClient(app, user);
    await makeToken(app, user, client, ['mood_read'], new Date(NOW.getTime() - DAY_MS));
    if (Object.keys(token).length > 0) await app.db('tokens').where({ user_id: user.id }).update(token);
    const [row] = await rows<{ live: boolean; usable: boolean }>(
      app.db,
      sql`select ${liveToken(raw('t'), NOW)} as live, ${usableAccessToken(raw('t'), NOW)} as usable from tokens t where t.user_id = ${user.id}`,
    );
    expect(row).toEqual({ live, usable });
  });
});

describe('services able to handle an attribute (able-services.ts)', () => {
  test('a service that acquired it and holds a live token, and a built-in service, are able; a revoked or never-acquiring one is not', async () => {
    const { user } = await makeUser(app);
    const connected = (await makeClient(app, user, 'Connected')).client;
    const revoked = (await makeClient(app, user, 'Revoked')).client;
    const stranger = (await makeClient(app, user, 'Never acquired')).client;
    await makeToken(app, user, connected, ['mood_write'], new Date(NOW.getTime() - 2 * DAY_MS));
    await makeToken(app, user, revoked, ['mood_write'], new Date(NOW.getTime() - DAY_MS));
    await makeToken(app, user, stranger, ['mood_write'], NOW);
    await app.db('tokens').where({ user_id: user.id, client_pk: revoked.id }).update({ revoked_at: NOW });
    const builtin = await app.db('oauth_clients').where({ client_id: BUILTIN_SERVICES[0].name }).first('id', 'client_id', 'name');
    const mood = await addAttribute(app, user.id, { name: 'mood' });
    const acquired = [
      { client_pk: revoked.id, acquired_at: new Date(NOW.getTime() - 3 * DAY_MS) },
      { client_pk: connected.id, acquired_at: new Date(NOW.getTime() - 2 * DAY_MS) },
      { client_pk: builtin.id, acquired_at: new Date(NOW.getTime() - DAY_MS) },
    ];
    await app.db('attribute_services').insert(acquired.map((a) => ({ ...a, user_id: user.id, attribute_id: mood.id })));

    const able = await rows<{ client_pk: number; last: Date | null }>(
      app.db,
      sql`select s.client_pk, ${lastConnected(raw('s'), NOW)} as last from attribute_services s join oauth_clients c on c.id = s.client_pk
           where s.user_id = ${user.id} and ${ableToHandle(raw('s'), raw('c'), NOW)} order by s.client_pk`,
    );
    expect(able.map((r) => r.client_pk).sort((x, y) => x - y)).toEqual([connected.id, builtin.id].sort((x, y) => x - y));
    expect(able.find((r) => r.client_pk === builtin.id)!.last).toBeNull();
    expect(able.find((r) => r.client_pk === connected.id)!.last).toEqual(new Date(NOW.getTime() - 2 * DAY_MS));

    const [row] = await rows<{ services: unknown }>(
      app.db,
      sql`select ${availableServices(raw('a'), NOW)} as services from attributes a where a.id = ${mood.id}`,
    );
    // Earliest acquisition first.
    expect(row.services).toEqual([
      { name: connected.client_id, label: 'Connected' },
      { name: builtin.client_id, label: builtin.name },
    ]);
  });
});

describe('visibility by scopes (visibleTo)', () => {
  test('an attribute is visible in a listed group, or when manual and manual attributes are', async () => {
    const { user } = await makeUser(app);
    await addAttributes(app, user.id, [
      { name: 'steps', group: 'activity' },
      { name: 'mood', group: 'mood' },
      { name: 'journal', group: 'mood', manual: true },
      { name: 'pushups', group: 'activity', manual: true },
    ]);
    const visible = async (groups: string[], manual: boolean) =>
      (
        await rows<{ name: string }>(
          app.db,
          sql`select a.name from attributes a where a.user_id = ${user.id} and ${visibleTo({ groups, manual }, raw('a'))} order by a.name`,
        )
      ).map((r) => r.name);
    expect(await visible(['activity'], false)).toEqual(['pushups', 'steps']);
    expect(await visible(['sleep'], true)).toEqual(['journal', 'pushups']);
    expect(await visible([], false)).toEqual([]);
  });
});

describe('the attribute list order (ATTRIBUTE_ORDER)', () => {
  test('group priority, then attribute priority, then name', async () => {
    const { user } = await makeUser(app);
    await addAttributes(app, user.id, [
      { name: 'zeta', group: 'custom', priority: 1 },
      { name: 'beta', group: 'activity', priority: 5 },
      { name: 'alpha', group: 'activity', priority: 5 },
      { name: 'first', group: 'activity', priority: 1 },
    ]);
    const order = await rows<{ name: string; group_priority: number }>(
      app.db,
      sql`select a.name, g.priority as group_priority from attributes a join groups g on g.name = a.group_name where a.user_id = ${user.id} order by ${ATTRIBUTE_ORDER}`,
    );
    const groupPriority = (name: string) => order.find((r) => r.name === name)!.group_priority;
    expect(groupPriority('first')).toBeLessThan(groupPriority('zeta')); // activity comes before custom
    expect(order.map((r) => r.name)).toEqual(['first', 'alpha', 'beta', 'zeta']);
  });
});

describe('within the rate limit (withinLimit, isPastLimit) and the count (countedCte, quotaKeyOf)', () => {
  test.each([
    [99, true],
    [100, true],
    [101, false],
  ])('%i requests against a limit of 100: within %s, in SQL and in TypeScript alike', async (points, within) => {
    expect(await holds(sql`select ${withinLimit(sql`${points}::integer`, 100)} as holds`)).toBe(within);
    expect(isPastLimit(points, 100)).toBe(!within);
  });

  test('the key in SQL is the key in TypeScript', async () => {
    const [row] = await rows<{ person: string; app: string }>(
      app.db,
      sql`select ${quotaKeyOf(sql`${41}::bigint`)} as person, ${quotaKeyOf(sql`${41}::bigint`, sql`${7}::bigint`)} as app`,
    );
    expect(row).toEqual({ person: `${QUOTA_PREFIX}:${quotaKey(41)}`, app: `${QUOTA_PREFIX}:${quotaKey(41, 7)}` });
  });

  test('a request is counted atomically on its key; a window that has ended starts again at 1', async () => {
    const key = `${QUOTA_PREFIX}:test:${process.pid}:${Date.now()}`;
    const count = (nowMs: number) =>
      rows<{ points: number; expire: number }>(
        app.db,
        sql`with one as (select 1), ${countedCte(raw('one'), sql`${key}::text`, sql`true`, { nowMs, windowMs: 1000 })} select points, expire from counted`,
      );
    expect(await count(10_000)).toEqual([{ points: 1, expire: 11_000 }]);
    expect(await count(10_500)).toEqual([{ points: 2, expire: 11_000 }]);
    expect(await count(11_000)).toEqual([{ points: 1, expire: 12_000 }]);
  });
});

describe('day locks (dayLocks)', () => {
  /** The advisory locks this transaction holds, after the fragment ran in it. */
  async function locksTaken(fragment: Sql): Promise<{ held: number; locks: number }> {
    return app.db.transaction(async (trx) => {
      const [row] = (await trx.raw(...[fragment.sql, fragment.values as never[]])).rows as Array<{ held: number }>;
      const [{ count }] = (await trx.raw("select count(*)::int as count from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted"))
        .rows as Array<{ count: number }>;
      return { held: Number(row.held), locks: count };
    });
  }

  test('takes one lock per distinct day, in one statement; behind a condition that fails, takes none', async () => {
    const keys = dayLockKeys(5, ['2026-11-01', '2026-11-02', '2026-11-01']);
    expect(keys).toHaveLength(2);
    expect(await locksTaken(sql`with ${dayLocks(keys)} select held from day_locks`)).toEqual({ held: 2, locks: 2 });
    const closed = sql`with gate as (select false as open), ${dayLocks(keys, { source: raw('gate'), condition: raw('gate.open') })} select held from day_locks`;
    expect(await locksTaken(closed)).toEqual({ held: 0, locks: 0 });
  });
});

describe('the custom-tag predicate (isCustomTagSql)', () => {
  test('agrees with isCustomTag: a custom-group integer attribute of priority 2 or more', async () => {
    const cases = [
      { group: CUSTOM_GROUP, valueType: 0, priority: 2 },
      { group: CUSTOM_GROUP, valueType: 0, priority: 1 },
      { group: CUSTOM_GROUP, valueType: 7, priority: 2 },
      { group: 'mood', valueType: 0, priority: 3 },
    ];
    for (const c of cases) {
      const inSql = await holds(
        sql`select ${isCustomTagSql(raw('a'))} as holds from (select ${c.group}::text as group_name, ${c.valueType}::smallint as value_type, ${c.priority}::integer as priority) as a`,
      );
      expect([c, inSql]).toEqual([c, isCustomTag(c)]);
    }
  });
});

describe("the person's local date (localDateIn)", () => {
  test.each([
    ['Pacific/Auckland', '2026-11-20T11:30:00Z'],
    ['America/Los_Angeles', '2026-11-20T07:59:00Z'],
    ['Asia/Kolkata', '2026-11-19T18:30:00Z'],
    ['UTC', '2026-11-20T23:59:59Z'],
  ])('in %s at %s, SQL and TypeScript give the same day', async (zone, instant) => {
    const at = new Date(instant);
    const [row] = await rows<{ day: string }>(app.db, sql`select ${localDateIn(sql`${at}::timestamptz`, sql`${zone}::text`)} as day`);
    expect(row.day).toBe(localDate(at, zone));
  });
});

describe('no copy of a rule stands elsewhere in src/', () => {
  /** Each rule's condition, and the one file that may spell it. */
  const RULES: Array<{ rule: string; pattern: RegExp; home: string }> = [
    { rule: 'a live token', pattern: /replaced_at is null/, home: 'src/domain/apps-and-grants/tokens.ts' },
    { rule: 'able to handle an attribute', pattern: /builtin\s+or\s+exists|builtin', true\)\.or/, home: 'src/domain/tracking/able-services.ts' },
    {
      rule: 'the attribute list order',
      pattern: /g\.priority\W+(column\W+|raw\W+)?a\.priority/,
      home: 'src/domain/tracking/attribute-order.ts',
    },
    { rule: 'within the rate limit', pattern: /points\s*(<=|>)\s*(\?|limit|this\.limit|\$)/, home: 'src/domain/apps-and-grants/quota.ts' },
    { rule: 'the quota key', pattern: /person:'|:app:'/, home: 'src/domain/apps-and-grants/quota.ts' },
    { rule: 'the day locks', pattern: /ADVISORY_LOCKS\.dayLocks/, home: 'src/domain/tracking/writes/day-locks.ts' },
    { rule: 'a custom tag', pattern: /priority\s*>=\s*(\?|\$|TAG_PRIORITY)/, home: 'src/domain/tracking/custom-tag.ts' },
    { rule: 'visibility by scopes', pattern: /group_name = any\(.*manual/, home: 'src/domain/apps-and-grants/visibility.ts' },
    { rule: "a person's local date", pattern: /at time zone/, home: 'src/domain/time.ts' },
  ];

  function sourceFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full);
      return entry.name.endsWith('.ts') ? [full] : [];
    });
  }

  test.each(RULES)('$rule is spelled only in $home', ({ pattern, home }) => {
    const root = path.resolve(__dirname, '../..');
    const spelled = sourceFiles(path.join(root, 'src'))
      .filter((file) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .some((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && pattern.test(line)),
      )
      .map((file) => path.relative(root, file));
    expect(spelled).toEqual([home]);
  });
});
