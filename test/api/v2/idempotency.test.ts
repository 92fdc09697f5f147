/**
 * Idempotency keys on the data-changing v2 POSTs (docs/idempotency.md, http/idempotency.ts): a
 * retry with the same key and body is answered the first answer and applies nothing; another body
 * is 422; concurrent retries apply once; the key is scoped to the client and the person; an expired
 * key applies again; without the header nothing changes.
 */
import { startTestApp, type TestApp, type TestResponse } from '../../support/app';
import { makeClient } from '../../support/fixtures';
import { acquire, valueOn, writer, type Writer } from './writes/setup';
import { sweepExpired } from '../../../src/domain/housekeeping';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let w: Writer;
let other: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app);
  other = await writer(app);
  await acquire(app, w.a, ['steps', 'coffees']);
  await acquire(app, other.a, ['steps']);
});
afterAll(async () => {
  await app.close();
});

const increment = (bearer: string, items: unknown[], key?: string) =>
  app.post('/api/2/attributes/increment/', { bearer, json: items, headers: key === undefined ? {} : { 'Idempotency-Key': key } });

const storedKeys = async (key: string) => Number((await app.db('idempotency_keys').where({ key }).count<{ count: string }[]>({ count: '*' }))[0].count);

/** The SQL statements the app sent while `send` ran (every statement goes through app.db). */
async function statementsOf(send: () => Promise<TestResponse>): Promise<{ response: TestResponse; statements: string[] }> {
  const statements: string[] = [];
  const listen = (query: { sql: string }) => statements.push(query.sql.trim());
  app.db.on('query', listen);
  try {
    return { response: await send(), statements };
  } finally {
    app.db.off('query', listen);
  }
}

test('a plain increment stays one statement without a key; with one, its claim, write and answer share one transaction, and a replay writes nothing', async () => {
  const items = (value: number) => [{ name: 'steps', date: '2026-09-30', value }];
  await increment(w.a, items(1)); // the token and the attributes are remembered from here on
  const plain = await statementsOf(() => increment(w.a, items(1)));
  expect(plain.statements).toHaveLength(1);
  expect(plain.statements[0]).toMatch(/insert into attribute_values/);

  const keyed = await statementsOf(() => increment(w.a, items(1), 'cost-1'));
  expect(keyed.response.body.success[0].current).toBe(3);
  const shape = keyed.statements.map((text) =>
    /^begin/i.test(text)
      ? 'BEGIN'
      : /^commit/i.test(text)
        ? 'COMMIT'
        : /^insert into idempotency_keys/.test(text)
          ? 'claim'
          : /^update idempotency_keys/.test(text)
            ? 'answer'
            : /insert into attribute_values/.test(text)
              ? 'write'
              : /rate_limits/.test(text)
                ? 'credentials check'
                : text,
  );
  expect(shape).toEqual(['credentials check', 'BEGIN', 'claim', 'write', 'answer', 'COMMIT']);

  const replayed = await statementsOf(() => increment(w.a, items(1), 'cost-1'));
  expect(replayed.response.headers.get('Idempotent-Replayed')).toBe('true');
  expect(replayed.statements.filter((text) => /attribute_values/.test(text))).toEqual([]);
  expect(replayed.statements.filter((text) => /^rollback/i.test(text))).toHaveLength(1);
  expect(await valueOn(app, w, 'steps', '2026-09-30')).toBe(3);
});

test('a retried increment with the same key counts once and answers the first answer again', async () => {
  const items = [{ name: 'steps', date: '2026-10-01', value: 500 }];
  const first = await increment(w.a, items, 'retry-1');
  expect(first.status).toBe(200);
  expect(first.body.success).toEqual([{ name: 'steps', date: '2026-10-01', value: 500, current: 500 }]);
  expect(first.headers.get('Idempotent-Replayed')).toBeNull();

  const retry = await increment(w.a, items, 'retry-1');
  expect(retry.status).toBe(200);
  expect(retry.body).toEqual(first.body);
  expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
  expect(retry.headers.get('X-RateLimit-Remaining')).not.toBeNull();
  expect(await valueOn(app, w, 'steps', '2026-10-01')).toBe(500);
});

test('the same key with another body answers 422 in the error shape and changes nothing', async () => {
  await increment(w.a, [{ name: 'steps', date: '2026-10-02', value: 10 }], 'body-1');
  const other = await increment(w.a, [{ name: 'steps', date: '2026-10-02', value: 99 }], 'body-1');
  expect(other.status).toBe(422);
  expect(other.body.detail).toMatch(/Idempotency-Key was used .* for another request/);
  expect(other.headers.get('Idempotent-Replayed')).toBeNull();
  expect(await valueOn(app, w, 'steps', '2026-10-02')).toBe(10);
});

test('two concurrent requests with one key apply once and both get the one answer', async () => {
  const items = [{ name: 'coffees', date: '2026-10-03', value: 1 }];
  const answers = await Promise.all([increment(w.a, items, 'race-1'), increment(w.a, items, 'race-1'), increment(w.a, items, 'race-1')]);
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
  for (const answer of answers) expect(answer.body.success).toEqual([{ name: 'coffees', date: '2026-10-03', value: 1, current: 1 }]);
  expect(answers.filter((a) => a.headers.get('Idempotent-Replayed') === 'true')).toHaveLength(2);
  expect(await valueOn(app, w, 'coffees', '2026-10-03')).toBe(1);
  expect(await storedKeys('race-1')).toBe(1);
});

test('another client or another person sending the same key applies on its own and never sees the first answer', async () => {
  const items = [{ name: 'steps', date: '2026-10-04', value: 70 }];
  const first = await increment(w.a, items, 'shared-key');
  expect(first.body.success[0].current).toBe(70);

  // Service B of the same person does not own steps: its own answer, not A's.
  const otherClient = await increment(w.b, items, 'shared-key');
  expect(otherClient.status).toBe(202);
  expect(otherClient.body.failed[0].error_code).toBe('unauthorised');
  expect(otherClient.headers.get('Idempotent-Replayed')).toBeNull();

  // Another person's service A writes their own day.
  await increment(other.a, [{ name: 'steps', date: '2026-10-04', value: 5 }]);
  const otherPerson = await increment(other.a, items, 'shared-key');
  expect(otherPerson.status).toBe(200);
  expect(otherPerson.body.success[0].current).toBe(75);
  expect(otherPerson.headers.get('Idempotent-Replayed')).toBeNull();

  expect(await valueOn(app, w, 'steps', '2026-10-04')).toBe(70);
  expect(await valueOn(app, other, 'steps', '2026-10-04')).toBe(75);
  expect(await storedKeys('shared-key')).toBe(3);
});

test('a key older than 24 hours applies again, and housekeeping deletes it', async () => {
  const items = [{ name: 'steps', date: '2026-10-05', value: 3 }];
  await increment(w.a, items, 'old-1');
  await app
    .db('idempotency_keys')
    .where({ key: 'old-1' })
    .update({ created_at: new Date(Date.now() - 25 * 60 * 60 * 1000) });
  // Not yet deleted: the expired row is taken over.
  const again = await increment(w.a, items, 'old-1');
  expect(again.headers.get('Idempotent-Replayed')).toBeNull();
  expect(again.body.success[0].current).toBe(6);

  await app
    .db('idempotency_keys')
    .where({ key: 'old-1' })
    .update({ created_at: new Date(Date.now() - 25 * 60 * 60 * 1000) });
  const swept = await sweepExpired(app.db, new Date());
  expect(swept.idempotencyKeys).toBeGreaterThanOrEqual(1);
  expect(await storedKeys('old-1')).toBe(0);
  const afterSweep = await increment(w.a, items, 'old-1');
  expect(afterSweep.headers.get('Idempotent-Replayed')).toBeNull();
  expect(afterSweep.body.success[0].current).toBe(9);
  expect(await valueOn(app, w, 'steps', '2026-10-05')).toBe(9);
});

test('without the header a retry applies again, as it always did, and no answer says Idempotent-Replayed', async () => {
  const items = [{ name: 'steps', date: '2026-10-06', value: 2 }];
  const first = await increment(w.a, items);
  const second = await increment(w.a, items);
  expect(second.body.success[0].current).toBe(4);
  for (const answer of [first, second]) expect(answer.headers.get('Idempotent-Replayed')).toBeNull();
  expect(await valueOn(app, w, 'steps', '2026-10-06')).toBe(4);
});

test.each([
  ['an empty key', '', /idempotency-key: must NOT have fewer than 1 characters/i],
  ['a key longer than 255 characters', 'k'.repeat(256), /idempotency-key: must NOT have more than 255 characters/i],
])('%s is 400 with a clear message and applies nothing', async (_label, key, message) => {
  const res = await increment(w.a, [{ name: 'steps', date: '2026-10-07', value: 1 }], key);
  expect(res.status).toBe(400);
  expect(res.body.detail).toMatch(message);
  expect(res.body.errors[0]).toMatchObject({ in: 'header' });
  expect(await valueOn(app, w, 'steps', '2026-10-07')).toBeNull();
});

test('a key of 255 characters is accepted', async () => {
  const res = await increment(w.a, [{ name: 'steps', date: '2026-10-08', value: 1 }], 'k'.repeat(255));
  expect(res.status).toBe(200);
});

test('an acquire answered with full objects is replayed with them, and an update with the same key as an increment is its own', async () => {
  const acquired = await app.post('/api/2/attributes/acquire/?success_objects=1', {
    bearer: w.a,
    json: [{ template: 'weight' }],
    headers: { 'Idempotency-Key': 'acq-1' },
  });
  expect(acquired.status).toBe(200);
  expect(acquired.body.success[0]).toMatchObject({ name: 'weight' });
  const again = await app.post('/api/2/attributes/acquire/?success_objects=1', {
    bearer: w.a,
    json: [{ template: 'weight' }],
    headers: { 'Idempotency-Key': 'acq-1' },
  });
  expect(again.body).toEqual(acquired.body);
  expect(again.headers.get('Idempotent-Replayed')).toBe('true');

  // The operation is part of the key's scope.
  const update = await app.post('/api/2/attributes/update/', {
    bearer: w.a,
    json: [{ name: 'steps', date: '2026-10-09', value: 8 }],
    headers: { 'Idempotency-Key': 'retry-1' },
  });
  expect(update.status).toBe(200);
  expect(update.headers.get('Idempotent-Replayed')).toBeNull();
});

describe('webhook endpoints (client credentials)', () => {
  let hooked: { client: OAuthClient; secret: string };
  let otherApp: { client: OAuthClient; secret: string };
  const basic = (c: { client: OAuthClient; secret: string }) => ({
    Authorization: `Basic ${Buffer.from(`${c.client.client_id}:${c.secret}`).toString('base64')}`,
  });
  const create = (c: { client: OAuthClient; secret: string }, url: string, key: string) =>
    app.post('/api/2/webhooks/', { headers: { ...basic(c), 'Idempotency-Key': key }, json: { url, events: ['values.updated'] } });
  const endpoints = async (c: { client: OAuthClient }) =>
    Number((await app.db('webhook_endpoints').where({ client_pk: c.client.id }).count<{ count: string }[]>({ count: '*' }))[0].count);

  beforeAll(async () => {
    hooked = (await makeClient(app, w.user, 'Hooked')) as { client: OAuthClient; secret: string };
    otherApp = (await makeClient(app, w.user, 'Other')) as { client: OAuthClient; secret: string };
  });

  test('a retried create makes one endpoint and answers the same secret; another app with the key makes its own', async () => {
    const first = await create(hooked, 'http://127.0.0.1:9/a', 'hook-1');
    expect(first.status).toBe(201);
    const retry = await create(hooked, 'http://127.0.0.1:9/a', 'hook-1');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await endpoints(hooked)).toBe(1);

    const theirs = await create(otherApp, 'http://127.0.0.1:9/a', 'hook-1');
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(first.body.id);
    expect(theirs.headers.get('Idempotent-Replayed')).toBeNull();
  });

  test('a retried rotation rotates once and answers the same new secret', async () => {
    const created = await create(hooked, 'http://127.0.0.1:9/rotated', 'hook-rotate-create');
    const rotate = () => app.post(`/api/2/webhooks/${created.body.id}/rotate-secret/`, { headers: { ...basic(hooked), 'Idempotency-Key': 'rotate-1' } });
    const first = await rotate();
    expect(first.status).toBe(200);
    expect(first.body.secret).not.toBe(created.body.secret);
    const retry = await rotate();
    expect(retry.body.secret).toBe(first.body.secret);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    // The same key to another endpoint is another request: 422.
    const other = await create(hooked, 'http://127.0.0.1:9/other', 'hook-rotate-other');
    const elsewhere = await app.post(`/api/2/webhooks/${other.body.id}/rotate-secret/`, { headers: { ...basic(hooked), 'Idempotency-Key': 'rotate-1' } });
    expect(elsewhere.status).toBe(422);
  });

  test('a refused create (400) is kept and replayed as it was', async () => {
    const refused = await create(hooked, 'https://169.254.169.254/latest/meta-data/', 'hook-bad');
    expect(refused.status).toBe(400);
    const retry = await create(hooked, 'https://169.254.169.254/latest/meta-data/', 'hook-bad');
    expect(retry.status).toBe(400);
    expect(retry.body).toEqual(refused.body);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
  });
});
