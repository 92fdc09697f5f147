/**
 * The operations whose credentials are checked by their first statement (http/credential-checks.ts,
 * docs/request-path.md "Credentials seen recently"): every one of them, run with a credential that
 * was remembered and then revoked, and with a request past the rate limit, reads out nothing (the
 * answer is the 401 or the 429 alone) and writes nothing.
 */
import { startTestApp, type TestApp, type TestResponse } from '../support/app';
import { acquire, writer, type Writer } from '../api/v2/writes/setup';
import { CREDENTIAL_CHECKS } from '../../src/http/credential-checks';
import { QUOTA_PREFIX, quotaKey } from '../../src/domain/apps-and-grants/quota';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const DAY = '2026-11-02';

/** A request of one operation, and what its answer holds when it is served. */
interface Sample {
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  /** The answer when the credentials are fine: the test's proof that the sample really reads or writes. */
  served(res: TestResponse): void;
}

/** One request per operation that checks its credentials with its first statement. */
const SAMPLES: Record<string, Sample> = {
  getProfile: { method: 'GET', path: '/api/2/accounts/profile/', served: (res) => expect(res.body.username).toMatch(/^person/) },
  listAttributes: { method: 'GET', path: '/api/2/attributes/?limit=100', served: (res) => expect(res.body.count).toBeGreaterThan(0) },
  listAttributesWithValues: {
    method: 'GET',
    path: `/api/2/attributes/with-values/?attributes=steps&date_max=${DAY}&days=2`,
    served: (res) => expect(res.body.results[0].values[0]).toEqual({ date: DAY, value: 1234 }),
  },
  listAttributeValues: {
    method: 'GET',
    path: `/api/2/attributes/values/?attribute=steps&date_max=${DAY}`,
    served: (res) => expect(res.body.results[0]).toEqual({ date: DAY, value: 1234 }),
  },
  listCorrelations: { method: 'GET', path: '/api/2/correlations/', served: (res) => expect(res.body).toHaveProperty('results') },
  updateAttributeValues: {
    method: 'POST',
    path: '/api/2/attributes/update/',
    json: [{ name: 'mood', date: DAY, value: 7 }],
    served: (res) => expect(res.body.success).toEqual([{ name: 'mood', date: DAY, value: 7 }]),
  },
  incrementAttributeValues: {
    method: 'POST',
    path: '/api/2/attributes/increment/',
    json: [{ name: 'steps', date: DAY, value: 10 }],
    served: (res) => expect(res.body.success[0].current).toBe(1244),
  },
  acquireAttributes: {
    method: 'POST',
    path: '/api/2/attributes/acquire/',
    json: [{ name: 'steps', manual: true }],
    served: (res) => expect(res.body.success).toEqual([{ name: 'steps', active: true }]),
  },
  createAttributes: {
    method: 'POST',
    path: '/api/2/attributes/create/',
    json: [{ label: 'Sauna minutes', group: 'health', value_type: 0 }],
    served: (res) => expect(res.body.success[0]).toMatchObject({ name: 'sauna_minutes', priority: 5, manual: true }),
  },
};

const deferring = Object.entries(CREDENTIAL_CHECKS.v2)
  .filter(([, mode]) => mode === 'first-statement')
  .map(([operationId]) => operationId);

test('every operation checked by its first statement has a sample here', () => {
  expect(Object.keys(SAMPLES).sort()).toEqual([...deferring].sort());
});

/** A person whose service holds a token it has used twice (so this instance remembers it), with steps 1234 on DAY. */
async function rememberedWriter(): Promise<Writer> {
  const w = await writer(app);
  await acquire(app, w.a, ['steps', 'mood']);
  const stored = await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: 'steps', date: DAY, value: 1234 }] });
  expect(stored.status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await app.get('/api/2/accounts/profile/', { bearer: w.a })).status).toBe(200);
  return w;
}

/** What the person has stored, the days marked changed and their attributes' owners: a write that was refused leaves them as they were. */
async function storedState(w: Writer): Promise<unknown> {
  const values = await app
    .db('attribute_values')
    .where({ user_id: w.user.id })
    .orderBy(['attribute_id', 'date'])
    .select('attribute_id', 'date', 'value_num', 'value_text');
  const changes = await app.db('value_changes').where({ user_id: w.user.id }).orderBy('date').select('date', 'changed_at');
  const attributes = await app.db('attributes').where({ user_id: w.user.id }).orderBy('name').select('name', 'owner_client_pk', 'active', 'manual');
  const services = await app
    .db('attribute_services')
    .where({ user_id: w.user.id })
    .orderBy(['attribute_id', 'client_pk'])
    .select('attribute_id', 'client_pk', 'acquired_at');
  return { values, changes, attributes, services };
}

/** Sends the sample with the writer's token; the answer and the text of every statement the request ran. */
async function send(w: Writer, sample: Sample): Promise<{ res: TestResponse; statements: string[] }> {
  const statements: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql);
  app.db.on('query', listener);
  try {
    const res = sample.method === 'GET' ? await app.get(sample.path, { bearer: w.a }) : await app.post(sample.path, { bearer: w.a, json: sample.json });
    return { res, statements };
  } finally {
    app.db.removeListener('query', listener);
  }
}

/** The check (the credential's recheck and the count) is the CTE `guard` of the request's first statement. */
const carriesTheCheck = (statement: string | undefined) => /\bguard as \(/.test(statement ?? '');

describe.each(deferring)('%s', (operationId) => {
  const sample = () => SAMPLES[operationId];

  test('with the remembered credential unchanged, it is served', async () => {
    const w = await rememberedWriter();
    const { res, statements } = await send(w, sample());
    expect(res.status).toBe(200);
    sample().served(res);
    expect(carriesTheCheck(statements[0])).toBe(true);
  });

  test('with the remembered credential revoked since, it answers 401 alone and writes nothing', async () => {
    const w = await rememberedWriter();
    const before = await storedState(w);
    await app.db('tokens').where({ user_id: w.user.id, client_pk: w.clientA.id }).update({ revoked_at: new Date() });
    const { res, statements } = await send(w, sample());
    expect(carriesTheCheck(statements[0])).toBe(true);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'The access token has been revoked or replaced by a refresh.' });
    expect(await storedState(w)).toEqual(before);
  });

  test('past the rate limit, it answers 429 alone and writes nothing', async () => {
    const w = await rememberedWriter();
    const before = await storedState(w);
    const limit = app.deps.config.rateLimitPerHour;
    await app
      .db('rate_limits')
      .where({ key: `${QUOTA_PREFIX}:${quotaKey(w.user.id, w.clientA.id)}` })
      .update({ points: limit });
    const { res, statements } = await send(w, sample());
    // Nothing but the first statement, which carried the check and found the request past the limit.
    expect(statements).toHaveLength(1);
    expect(carriesTheCheck(statements[0])).toBe(true);
    expect(res.status).toBe(429);
    expect(Object.keys(res.body)).toEqual(['detail']);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await storedState(w)).toEqual(before);
  });
});
