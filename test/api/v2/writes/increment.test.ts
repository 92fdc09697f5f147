import { startTestApp, type TestApp } from '../../../support/app';
import { acquire, valueOn, writer, type Writer } from './setup';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app);
  await acquire(app, w.a, ['steps', 'weight', 'coffees', 'mood', 'mood_note', 'sleep_start', 'sleep_end', 'body_fat']);
  await app.post('/api/2/attributes/create/', {
    bearer: w.a,
    json: [
      { label: 'Sauna', group: 'health', value_type: 7 },
      { label: 'Focus', group: 'productivity', value_type: 8 },
    ],
  });
});
// A test that moves the clock gets the file's clock back, even when one of its assertions fails.
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

const increment = (bearer: string, items: unknown[]) => app.post('/api/2/attributes/increment/', { bearer, json: items });

test('a day without a value starts from 0, and each success carries current, the new total', async () => {
  const first = await increment(w.a, [{ name: 'steps', date: '2026-11-01', value: 1200 }]);
  expect(first.status).toBe(200);
  expect(first.body.success).toEqual([{ name: 'steps', date: '2026-11-01', value: 1200, current: 1200 }]);
  const second = await increment(w.a, [
    { name: 'steps', date: '2026-11-01', value: 800 },
    { name: 'steps', date: '2026-11-01', value: -500 },
  ]);
  expect(second.body.success.map((s: { current: number }) => s.current)).toEqual([2000, 1500]);
  expect(await valueOn(app, w, 'steps', '2026-11-01')).toBe(1500);
});

test('a float attribute takes float deltas', async () => {
  await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: 'weight', date: '2026-11-01', value: 70 }] });
  const res = await increment(w.a, [{ name: 'weight', date: '2026-11-01', value: 0.25 }]);
  expect(res.body.success[0].current).toBe(70.25);
});

test('a float delta on an integer attribute fails: "Cannot apply a float to an integer type"', async () => {
  const res = await increment(w.a, [{ name: 'steps', date: '2026-11-01', value: 1.5 }]);
  expect(res.status).toBe(202);
  expect(res.body.failed[0]).toEqual({
    name: 'steps',
    date: '2026-11-01',
    value: 1.5,
    error: 'Cannot apply a float to an integer type.',
    error_code: 'validation',
  });
  expect(await valueOn(app, w, 'steps', '2026-11-01')).toBe(1500);
});

test.each([
  ['mood_note', 'a string'],
  ['sleep_start', 'a time of day'],
  ['sleep_end', 'a time of day'],
  ['focus', 'a scale'],
])('%s cannot be incremented (%s)', async (name, kind) => {
  const res = await increment(w.a, [{ name, date: '2026-11-01', value: 1 }]);
  expect(res.body.failed[0].error_code).toBe('validation');
  expect(res.body.failed[0].error).toBe(`Attribute ${name} is ${kind} and cannot be incremented.`);
});

test('a boolean can be incremented while its total stays 0 or 1', async () => {
  const up = await increment(w.a, [{ name: 'sauna', date: '2026-11-05', value: 1 }]);
  expect(up.body.success).toEqual([{ name: 'sauna', date: '2026-11-05', value: 1, current: 1 }]);
  const twice = await increment(w.a, [{ name: 'sauna', date: '2026-11-05', value: 1 }]);
  expect(twice.status).toBe(202);
  expect(twice.body.failed[0]).toMatchObject({ error: 'Attribute sauna is a boolean: 0 or 1.', error_code: 'validation' });
  const down = await increment(w.a, [{ name: 'sauna', date: '2026-11-05', value: -1 }]);
  expect(down.body.success[0].current).toBe(0);
  expect(await valueOn(app, w, 'sauna', '2026-11-05')).toBe(0);
});

test('a total outside the attribute range is refused and the day keeps its value', async () => {
  await app.post('/api/2/attributes/update/', {
    bearer: w.a,
    json: [
      { name: 'mood', date: '2026-11-01', value: 8 },
      { name: 'body_fat', date: '2026-11-01', value: 0.9 },
    ],
  });
  const res = await increment(w.a, [
    { name: 'mood', date: '2026-11-01', value: 2 },
    { name: 'body_fat', date: '2026-11-01', value: 0.2 },
  ]);
  expect(res.body.failed.map((f: { error_code: string }) => f.error_code)).toEqual(['validation', 'validation']);
  expect(await valueOn(app, w, 'mood', '2026-11-01')).toBe(8);
  expect(await valueOn(app, w, 'body_fat', '2026-11-01')).toBe(0.9);
});

test('an omitted date means today in the user timezone, on both sides of the date line', async () => {
  app.setNow(new Date('2026-11-22T11:30:00Z'));
  const east = await writer(app, undefined, 'Pacific/Kiritimati'); // UTC+14: already 23 November
  const west = await writer(app, undefined, 'Pacific/Niue'); // UTC-11: still 22 November
  await acquire(app, east.a, ['coffees']);
  await acquire(app, west.a, ['coffees']);
  const e = await increment(east.a, [{ name: 'coffees', value: 1 }]);
  const x = await increment(west.a, [{ name: 'coffees', value: 1 }]);
  expect(e.body.success[0]).toEqual({ name: 'coffees', value: 1, date: '2026-11-23', current: 1 });
  expect(x.body.success[0]).toEqual({ name: 'coffees', value: 1, date: '2026-11-22', current: 1 });
  app.setNow(undefined);
});

test("missing fields, a delta that is not a number, and another service's attribute fail per item", async () => {
  const res = await increment(w.b, [{ value: 1 }, { name: 'steps', value: 1 }]);
  expect(res.body.failed.map((f: { error_code: string }) => f.error_code)).toEqual(['missing_field', 'unauthorised']);
  expect(res.body.failed[0].error).toBe('Item 0 is missing required fields: name.');
  const notNumber = await increment(w.a, [{ name: 'steps', value: '5' }]);
  expect(notNumber.body.failed[0].error_code).toBe('validation');
});

test('50 concurrent increments of 1 add exactly 50', async () => {
  const requests = Array.from({ length: 50 }, () => increment(w.a, [{ name: 'coffees', date: '2026-10-10', value: 1 }]));
  const answers = await Promise.all(requests);
  expect(answers.every((res) => res.status === 200)).toBe(true);
  expect(await valueOn(app, w, 'coffees', '2026-10-10')).toBe(50);
  expect(answers.map((res) => res.body.success[0].current).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
});

test('an update and increments racing on one day never lose an effect', async () => {
  // Whatever the order, the final total is the update's value plus the increments applied after it.
  const day = '2026-10-11';
  const ops = [
    app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: 'steps', date: day, value: 1000 }] }),
    ...Array.from({ length: 10 }, () => increment(w.a, [{ name: 'steps', date: day, value: 1 }])),
  ];
  const answers = await Promise.all(ops);
  const totals = answers.slice(1).map((res) => res.body.success[0].current as number);
  const final = (await valueOn(app, w, 'steps', day)) as number;
  const afterUpdate = totals.filter((t) => t > 1000 - 1).length; // increments that saw the update
  expect(final).toBe(1000 + afterUpdate);
  expect(new Set(totals).size).toBe(10); // every increment saw a distinct total: none was lost
});
