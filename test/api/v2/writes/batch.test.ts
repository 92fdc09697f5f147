/**
 * Batch writes are set-based (docs/batch-writes.md): one transaction per request and a fixed number
 * of statements whatever the item count; items still apply in the order sent, each as if it were
 * written after the ones before it; concurrent batches that lock the same things in opposite
 * orders never deadlock.
 */
import type { Knex } from 'knex';
import { startTestApp, type TestApp, type TestResponse } from '../../../support/app';
import { acquire, ALL_WRITE, valueOn, writer, type Writer } from './setup';
import { accessFor } from '../../../../src/domain/apps-and-grants/scopes';
import { batchDeadlockRetries } from '../../../../src/domain/tracking/writes/batch';
import type { WriteContext } from '../../../../src/domain/tracking/writes/context';
import { writeValues } from '../../../../src/domain/tracking/writes/values';
import { verifiedWrite } from '../../../../src/domain/tracking/writes/verified-write';
import { customText } from '../../../../src/domain/tracking/writes/custom-tags';
import { addDays } from '../../../../src/domain/time';

let app: TestApp;
let w: Writer;
const FIVE = ['steps', 'water', 'coffees', 'productive_min', 'tasks_completed'];
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app);
  await acquire(app, w.a, [...FIVE, 'mood']);
  await app.post('/api/2/attributes/create/', { bearer: w.a, json: [{ label: 'Sauna', group: 'health', value_type: 7 }] });
});
afterAll(async () => {
  await app.close();
});

/** The SQL statements the app sent while `send` ran (every statement goes through app.db). */
async function statementsOf(send: () => Promise<TestResponse>): Promise<{ response: TestResponse; statements: string[] }> {
  const statements: string[] = [];
  const listen = (query: { sql: string }) => statements.push(query.sql);
  app.db.on('query', listen);
  try {
    return { response: await send(), statements };
  } finally {
    app.db.off('query', listen);
  }
}

/** `count` update items: five attributes on consecutive days ending 2026-11-07. */
function fiveAttributeItems(count: number, value: (i: number) => number): Array<{ name: string; date: string; value: number }> {
  return Array.from({ length: count }, (_, i) => ({ name: FIVE[i % 5], date: addDays('2026-11-07', -Math.floor(i / 5)), value: value(i) }));
}

const isBegin = (sql: string) => /^begin/i.test(sql.trim());

test.each([
  ['update', (i: number) => 100 + i],
  ['increment', () => 1],
])('a plain 35-item %s is one statement in all, the token rechecked and counted in it, like a 1-item one', async (endpoint, value) => {
  const send = (count: number) => () => app.post(`/api/2/attributes/${endpoint}/`, { bearer: w.a, json: fiveAttributeItems(count, value) });
  // Unmeasured: the token's once-a-minute last-use write, the first read of the five attributes, and
  // the token's first lookup in full (remembered from then on: docs/request-path.md).
  const first = await statementsOf(send(35));
  const one = await statementsOf(send(1));
  const many = await statementsOf(send(35));
  expect([first.response.status, one.response.status, many.response.status]).toEqual([200, 200, 200]);
  expect(many.response.body.success).toHaveLength(35);
  expect(many.statements.length).toBe(one.statements.length);
  // The write, with the remembered token's recheck and rate-limit count in front (the attributes
  // are remembered from the batch before and checked by the write itself): no transaction of its own.
  expect(many.statements).toHaveLength(1);
  expect(many.statements[0]).toMatch(/^with checked as[\s\S]*insert into rate_limits[\s\S]*insert into attribute_values/);
  expect(many.statements.filter(isBegin)).toHaveLength(0);
});

test('remembered attributes are never trusted: after another service acquires one, the next batch of the first fails for it and writes nothing of it', async () => {
  const both = await writer(app);
  await acquire(app, both.a, ['floors', 'water']);
  const batch = [
    { name: 'floors', date: '2026-07-01', value: 3 },
    { name: 'water', date: '2026-07-01', value: 900 },
  ];
  expect((await app.post('/api/2/attributes/update/', { bearer: both.a, json: batch })).status).toBe(200); // remembered now
  expect((await app.post('/api/2/attributes/acquire/', { bearer: both.b, json: [{ name: 'floors' }] })).status).toBe(200);
  const again = await app.post('/api/2/attributes/update/', {
    bearer: both.a,
    json: [
      { ...batch[0], value: 4 },
      { ...batch[1], value: 950 },
    ],
  });
  expect(again.status).toBe(202);
  expect(again.body.failed).toEqual([
    { name: 'floors', date: '2026-07-01', value: 4, error: 'Attribute floors does not belong to this service: acquire it first.', error_code: 'unauthorised' },
  ]);
  expect(await valueOn(app, both, 'floors', '2026-07-01')).toBe(3);
  expect(await valueOn(app, both, 'water', '2026-07-01')).toBe(950);
});

test('a batch incrementing one day twice takes the locked path: one transaction, still a fixed number of statements', async () => {
  const twice = (count: number) => fiveAttributeItems(count, () => 1).flatMap((item) => [item, item]);
  const one = await statementsOf(() => app.post('/api/2/attributes/increment/', { bearer: w.a, json: twice(1) }));
  const many = await statementsOf(() => app.post('/api/2/attributes/increment/', { bearer: w.a, json: twice(17) }));
  expect([one.response.status, many.response.status]).toEqual([200, 200]);
  expect(many.statements.length).toBe(one.statements.length);
  expect(many.statements.filter(isBegin)).toHaveLength(1);
});

test('the one-statement write writes nothing when an attribute changed since it was read', async () => {
  const steps = await app.db('attributes').where({ user_id: w.user.id, name: 'steps' }).first();
  const context: WriteContext = { userId: w.user.id, clientPk: w.clientA.id, access: accessFor(['activity_write']), now: new Date(), today: '2026-11-20' };
  const stale = { ...steps, owner_client_pk: w.clientB.id }; // as if read before A acquired it
  expect(await verifiedWrite(app.deps.database, context, [{ kind: 'update', attribute: stale, date: '2026-08-20', amount: 5 }])).toBeUndefined();
  expect(await app.db('attribute_values').where({ user_id: w.user.id, attribute_id: steps.id, date: '2026-08-20' }).first()).toBeUndefined();
  expect(await app.db('value_changes').where({ user_id: w.user.id, date: '2026-08-20' }).first()).toBeUndefined();
  const written = await verifiedWrite(app.deps.database, context, [{ kind: 'increment', attribute: steps, date: '2026-08-20', amount: 5 }]);
  expect(written).toEqual(new Map([[`${steps.id}|2026-08-20`, 5]]));
});

/** The request's check (the remembered token's recheck and the rate-limit count) is the CTE `guard` of this statement. */
const carriesTheCheck = (statement: string) => /\bguard as \(/.test(statement);

test('acquire, release and create of 35 items send as many statements as of one; create and a steady acquire are one statement in all', async () => {
  const tags = Array.from({ length: 35 }, (_, i) => `Batch tag ${i}`);
  // Unmeasured first use of each token: its once-a-minute last-use write is not the batch's.
  await app.post('/api/2/attributes/create/', { bearer: w.a, json: [{ label: 'Warm-up tag', group: 'custom', value_type: 0 }] });
  await app.post('/api/2/attributes/acquire/', { bearer: w.b, json: [{ name: 'warm_up_tag' }] });
  await app.get('/api/2/accounts/profile/', { bearer: w.b }); // used twice: remembered, checked by the first statement
  const createOne = await statementsOf(() =>
    app.post('/api/2/attributes/create/', { bearer: w.a, json: [{ label: 'Single tag', group: 'custom', value_type: 0 }] }),
  );
  const createMany = await statementsOf(() =>
    app.post('/api/2/attributes/create/', { bearer: w.a, json: tags.map((label) => ({ label, group: 'custom', value_type: 0 })) }),
  );
  expect(createMany.response.body.success).toHaveLength(35);
  expect(createMany.statements.length).toBe(createOne.statements.length);
  // The insert of every new attribute and the record of who can handle them, with the token's
  // recheck and count in front: one statement, no transaction of its own.
  expect(createMany.statements).toHaveLength(1);
  expect(carriesTheCheck(createMany.statements[0])).toBe(true);

  const names = createMany.response.body.success.map((s: { name: string }) => s.name);
  const acquireOne = await statementsOf(() => app.post('/api/2/attributes/acquire/', { bearer: w.b, json: [{ name: 'single_tag' }] }));
  const acquireMany = await statementsOf(() => app.post('/api/2/attributes/acquire/', { bearer: w.b, json: names.map((name: string) => ({ name })) }));
  expect([acquireOne.response.status, acquireMany.response.status]).toEqual([200, 200]);
  expect(acquireMany.statements.length).toBe(acquireOne.statements.length);
  // Read first (these attributes were never named in a batch of this person), then one statement.
  expect(acquireMany.statements).toHaveLength(2);
  // Again, as a syncing service does: the attributes are remembered, and the statement checks them.
  const againOne = await statementsOf(() => app.post('/api/2/attributes/acquire/', { bearer: w.b, json: [{ name: 'single_tag' }] }));
  const againMany = await statementsOf(() => app.post('/api/2/attributes/acquire/', { bearer: w.b, json: names.map((name: string) => ({ name })) }));
  expect([againOne.response.status, againMany.response.status]).toEqual([200, 200]);
  expect(againMany.response.body.success).toHaveLength(35);
  expect(againOne.statements).toHaveLength(1);
  expect(againMany.statements).toHaveLength(1);
  expect(carriesTheCheck(againMany.statements[0])).toBe(true);

  const releaseOne = await statementsOf(() => app.post('/api/2/attributes/release/', { bearer: w.b, json: [{ name: 'single_tag' }] }));
  const releaseMany = await statementsOf(() => app.post('/api/2/attributes/release/', { bearer: w.b, json: names.map((name: string) => ({ name })) }));
  expect([releaseOne.response.status, releaseMany.response.status]).toEqual([200, 200]);
  expect(releaseMany.statements.length).toBe(releaseOne.statements.length);
  expect(releaseMany.statements.filter(isBegin)).toHaveLength(1);
  for (const measured of [createMany, acquireMany, againMany]) expect(measured.statements.filter(isBegin)).toHaveLength(0);
});

test('acquiring templates the person lacks, 1 or 35 at a time, is one transaction of as many statements', async () => {
  const fresh = await writer(app);
  const groups = ALL_WRITE.filter((scope) => scope.endsWith('_write')).map((scope) => scope.replace(/_write$/, ''));
  const templates: string[] = await app.db('templates').whereIn('group_name', groups).orderBy('name').limit(37).pluck('name');
  // The token's first uses (remembered from then on).
  await app.post('/api/2/attributes/acquire/', { bearer: fresh.a, json: [{ template: templates[0] }] });
  await app.get('/api/2/accounts/profile/', { bearer: fresh.a });
  const one = await statementsOf(() => app.post('/api/2/attributes/acquire/', { bearer: fresh.a, json: [{ template: templates[1] }] }));
  const many = await statementsOf(() =>
    app.post('/api/2/attributes/acquire/', { bearer: fresh.a, json: templates.slice(2).map((template) => ({ template })) }),
  );
  expect([one.response.status, many.response.status]).toEqual([200, 200]);
  expect(many.response.body.success).toHaveLength(35);
  expect(many.statements.length).toBe(one.statements.length);
  expect(many.statements.filter(isBegin)).toHaveLength(1);
});

test("tags written in one batch rebuild each day's custom text in the same few statements", async () => {
  const created = await app.post('/api/2/attributes/create/', {
    bearer: w.a,
    json: ['Swim', 'Read', 'Cook', 'Walk', 'Nap'].map((label) => ({ label, group: 'custom', value_type: 0 })),
  });
  const tags: string[] = created.body.success.map((s: { name: string }) => s.name);
  const items = (days: number) =>
    Array.from({ length: days * 5 }, (_, i) => ({ name: tags[i % 5], date: addDays('2026-10-07', -Math.floor(i / 5)), value: 1 }));
  // Unmeasured: the first tag of a person creates their `custom` attribute, once.
  await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: tags[0], date: '2026-10-01', value: 1 }] });
  const one = await statementsOf(() => app.post('/api/2/attributes/update/', { bearer: w.a, json: items(1).slice(0, 1) }));
  const many = await statementsOf(() => app.post('/api/2/attributes/update/', { bearer: w.a, json: items(7) }));
  expect(many.statements.length).toBe(one.statements.length);
  for (let back = 0; back < 7; back++) expect(await valueOn(app, w, 'custom', addDays('2026-10-07', -back))).toBe(customText([...tags].sort())); // written together: in name order
});

describe('items touching the same day apply one after another, in the order sent', () => {
  let context: WriteContext;
  beforeAll(() => {
    context = {
      userId: w.user.id,
      clientPk: w.clientA.id,
      access: accessFor(['health_write', 'mood_write', 'activity_write']),
      now: new Date(),
      today: '2026-11-20',
    };
  });

  test('two increments of one day answer the running total; one leaving the range fails alone and the next goes on from before it', async () => {
    const res = await app.post('/api/2/attributes/increment/', {
      bearer: w.a,
      json: [
        { name: 'mood', date: '2026-09-01', value: 3 },
        { name: 'mood', date: '2026-09-01', value: 4 },
        { name: 'mood', date: '2026-09-01', value: 5 }, // 12: outside 1-9
        { name: 'mood', date: '2026-09-01', value: 2 },
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body.success.map((s: { current: number }) => s.current)).toEqual([3, 7, 9]);
    expect(res.body.failed).toEqual([
      { name: 'mood', date: '2026-09-01', value: 5, error: 'Attribute mood is an integer from 1 to 9.', error_code: 'validation' },
    ]);
    expect(await valueOn(app, w, 'mood', '2026-09-01')).toBe(9);
  });

  test("two updates of one day: the later one is the day's value", async () => {
    const res = await app.post('/api/2/attributes/update/', {
      bearer: w.a,
      json: [
        { name: 'steps', date: '2026-09-02', value: 100 },
        { name: 'steps', date: '2026-09-02', value: 250 },
      ],
    });
    expect(res.status).toBe(200);
    expect(await valueOn(app, w, 'steps', '2026-09-02')).toBe(250);
  });

  test('an update then increments in one batch: each increment starts from what the items before it left', async () => {
    await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: 'steps', date: '2026-09-03', value: 5000 }] });
    const result = await writeValues(app.deps.database, context, [
      { kind: 'increment', item: { name: 'steps', date: '2026-09-03', value: 10 } },
      { kind: 'update', item: { name: 'steps', date: '2026-09-03', value: 100 } },
      { kind: 'increment', item: { name: 'steps', date: '2026-09-03', value: 1 } },
      { kind: 'update', item: { name: 'sauna', date: '2026-09-03', value: 0 } },
      { kind: 'increment', item: { name: 'sauna', date: '2026-09-03', value: 1 } },
      { kind: 'increment', item: { name: 'sauna', date: '2026-09-03', value: 1 } }, // 2: a boolean is 0 or 1
      { kind: 'increment', item: { name: 'sauna', date: '2026-09-03', value: -1 } },
    ]);
    expect(result.success).toEqual([
      { name: 'steps', date: '2026-09-03', value: 10, current: 5010 },
      { name: 'steps', date: '2026-09-03', value: 100 },
      { name: 'steps', date: '2026-09-03', value: 1, current: 101 },
      { name: 'sauna', date: '2026-09-03', value: 0 },
      { name: 'sauna', date: '2026-09-03', value: 1, current: 1 },
      { name: 'sauna', date: '2026-09-03', value: -1, current: 0 },
    ]);
    expect(result.failed).toEqual([{ name: 'sauna', date: '2026-09-03', value: 1, error: 'Attribute sauna is a boolean: 0 or 1.', error_code: 'validation' }]);
    expect(await valueOn(app, w, 'steps', '2026-09-03')).toBe(101);
    expect(await valueOn(app, w, 'sauna', '2026-09-03')).toBe(0);
  });

  test('a batch whose every item fails writes nothing, not even a changed day for the derived data', async () => {
    const before = await app.db('value_changes').where({ user_id: w.user.id, date: '2026-09-04' }).first();
    const res = await app.post('/api/2/attributes/increment/', {
      bearer: w.a,
      json: [
        { name: 'sauna', date: '2026-09-04', value: 2 },
        { name: 'nope', date: '2026-09-04', value: 1 },
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body.failed.map((f: { error_code: string }) => f.error_code)).toEqual(['validation', 'not_found']);
    expect(before).toBeUndefined();
    expect(await app.db('value_changes').where({ user_id: w.user.id, date: '2026-09-04' }).first()).toBeUndefined();
    expect(await app.db('attribute_values').where({ user_id: w.user.id, date: '2026-09-04' }).first()).toBeUndefined();
  });
});

describe('concurrent batches in opposite orders never deadlock', () => {
  async function tagsOf(service: string, bearer: string, count: number): Promise<string[]> {
    const res = await app.post('/api/2/attributes/create/', {
      bearer,
      json: Array.from({ length: count }, (_, i) => ({ label: `${service} ${i}`, group: 'custom', value_type: 0 })),
    });
    expect(res.status).toBe(200);
    return res.body.success.map((s: { name: string }) => s.name);
  }

  async function tagsOn(db: Knex, userId: number, date: string): Promise<string[]> {
    return db('attribute_values as v')
      .join('attributes as a', 'a.id', 'v.attribute_id')
      .where({ 'v.user_id': userId, 'v.date': date, 'a.group_name': 'custom', 'a.value_type': 0, 'v.value_num': 1 })
      .where('a.priority', '>=', 2)
      .orderBy('a.name')
      .pluck('a.name');
  }

  test('two services writing tags on the same days, one oldest first and one newest first: every request answers, every tag and text is there', async () => {
    const both = await writer(app, ['custom_read', 'custom_write']);
    const ours = await tagsOf('a', both.a, 5);
    const theirs = await tagsOf('b', both.b, 5);
    const days = Array.from({ length: 7 }, (_, i) => addDays('2026-08-01', i));
    const batch = (tags: string[], order: string[]) => order.flatMap((date) => tags.map((name) => ({ name, date, value: 1 })));
    const retriesBefore = batchDeadlockRetries();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, round) => [
        app.post('/api/2/attributes/update/', { bearer: both.a, json: batch(ours, round % 2 ? days : [...days].reverse()) }),
        app.post('/api/2/attributes/update/', { bearer: both.b, json: batch(theirs, round % 2 ? [...days].reverse() : days) }),
      ]).flat(),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(batchDeadlockRetries()).toBe(retriesBefore);
    for (const date of days) {
      expect(await tagsOn(app.db, both.user.id, date)).toEqual([...ours, ...theirs].sort());
      const text = (await valueOn(app, both, 'custom', date)) as string;
      expect(text.split(', ').sort()).toEqual([...ours, ...theirs].map((name) => name.replace(/_/g, ' ')).sort());
    }
  });

  test('two services acquiring the same ten attributes in opposite orders: every request answers and each attribute has one owner', async () => {
    const both = await writer(app);
    const templates = ['steps', 'water', 'coffees', 'caffeine', 'floors', 'weight', 'sleep', 'mood', 'productive_min', 'tasks_completed'];
    await acquire(app, both.a, templates);
    const retriesBefore = batchDeadlockRetries();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => [
        app.post('/api/2/attributes/acquire/', { bearer: both.a, json: templates.map((name) => ({ name })) }),
        app.post('/api/2/attributes/acquire/', { bearer: both.b, json: [...templates].reverse().map((name) => ({ name })) }),
      ]).flat(),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(batchDeadlockRetries()).toBe(retriesBefore);
    const owners = await app.db('attributes').where({ user_id: both.user.id }).whereIn('name', templates).pluck('owner_client_pk');
    expect(owners).toHaveLength(10);
    for (const owner of owners) expect([both.clientA.id, both.clientB.id]).toContain(owner);
  });
});
