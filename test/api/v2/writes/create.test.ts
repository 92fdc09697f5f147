import { startTestApp, type TestApp } from '../../../support/app';
import { writer, type Writer } from './setup';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app, ['activity_write', 'food_write', 'custom_write', 'manual_write', 'activity_read']);
});
afterAll(async () => {
  await app.close();
});

const create = (json: unknown[], query = '', bearer = w.a) => app.post(`/api/2/attributes/create/${query}`, { bearer, json });

test('a template item creates the attribute and is always answered with the full attribute object', async () => {
  const res = await create([{ template: 'floors', manual: false }]);
  expect(res.status).toBe(200);
  expect(res.body.success).toEqual([
    {
      template: 'floors',
      name: 'floors',
      label: expect.any(String),
      group: { name: 'activity', label: 'Activity', priority: expect.any(Number) },
      service: { name: w.clientA.client_id, label: 'Service A' },
      active: true,
      priority: expect.any(Number),
      manual: false,
      value_type: 0,
      value_type_description: 'Integer',
      available_services: [{ name: w.clientA.client_id, label: 'Service A' }],
    },
  ]);
});

test('creating an attribute that exists fails with already_exists', async () => {
  const res = await create([{ template: 'floors' }]);
  expect(res.status).toBe(202);
  expect(res.body.failed[0]).toMatchObject({ template: 'floors', error_code: 'already_exists' });
});

test('a label item echoes the item with the name derived from the label and the stored priority; manual defaults to true', async () => {
  const res = await create([{ label: 'Cups of tea', group: 'food', value_type: 0 }]);
  expect(res.body.success).toEqual([{ label: 'Cups of tea', group: 'food', value_type: 0, name: 'cups_of_tea', priority: 5, manual: true }]);
  const row = await app.db('attributes').where({ user_id: w.user.id, name: 'cups_of_tea' }).first();
  expect(row).toMatchObject({ manual: true, template_name: null, group_name: 'food', value_type: 0, active: true });
});

test('a label item is echoed with its keys in the order sent, then the name and what was stored', async () => {
  const res = await create([
    { label: 'Echo one', group: 'food', value_type: 0 },
    { label: 'Echo two', group: 'food', value_type: 0, manual: false },
    { value_type: 0, label: 'Echo three', priority: 9, group: 'food' },
    { label: 'Echo four', group: 'food', manual: false, value_type: 0, note: 'kept' },
  ]);
  expect(res.status).toBe(200);
  const echoes = (JSON.parse(res.text) as { success: Array<Record<string, unknown>> }).success;
  expect(echoes.map((echo) => JSON.stringify(echo))).toEqual([
    '{"label":"Echo one","group":"food","value_type":0,"name":"echo_one","priority":5,"manual":true}',
    '{"label":"Echo two","group":"food","value_type":0,"manual":false,"name":"echo_two","priority":5}',
    '{"value_type":0,"label":"Echo three","priority":5,"group":"food","name":"echo_three","manual":true}',
    '{"label":"Echo four","group":"food","manual":false,"value_type":0,"note":"kept","name":"echo_four","priority":5}',
  ]);
});

test('a label whose name the person already has fails with already_exists, also twice in one batch; a template name gets _2', async () => {
  const res = await create([
    { label: 'Cups of tea!', group: 'food', value_type: 0 }, // cups_of_tea exists (created above)
    { label: 'Steps', group: 'activity', value_type: 0 },
    { label: 'Café visits', group: 'food', value_type: 0 },
    { label: 'cafe  VISITS', group: 'food', value_type: 0 }, // the same name as the item before
  ]);
  expect(res.status).toBe(202);
  expect(res.body.success.map((s: { name: string }) => s.name)).toEqual(['steps_2', 'cafe_visits']);
  expect(res.body.failed).toEqual([
    { label: 'Cups of tea!', group: 'food', value_type: 0, error: 'Attribute cups_of_tea already exists.', error_code: 'already_exists' },
    { label: 'cafe  VISITS', group: 'food', value_type: 0, error: 'Attribute cafe_visits already exists.', error_code: 'already_exists' },
  ]);
  const again = await create([{ label: 'Steps', group: 'activity', value_type: 0 }]);
  expect(again.body.failed[0]).toMatchObject({ error: 'Attribute steps_2 already exists.', error_code: 'already_exists' });
  expect(await app.db('attributes').where({ user_id: w.user.id }).whereIn('name', ['cups_of_tea_2', 'steps_3', 'cafe_visits_2']).count({ n: '*' })).toEqual([
    { n: 0 },
  ]);
});

test('a custom tag keeps underscores for spaces and gets priority 2', async () => {
  const res = await create([{ label: 'Went running', group: 'custom', value_type: 0 }]);
  expect(res.body.success[0].name).toBe('went_running');
  expect((await app.db('attributes').where({ user_id: w.user.id, name: 'went_running' }).first('priority')).priority).toBe(2);
});

test('with success_objects every success is a full attribute object', async () => {
  const res = await create([{ label: 'Biscuits', group: 'food', value_type: 0, manual: false }], '?success_objects=true');
  expect(res.body.success[0]).toMatchObject({ template: null, name: 'biscuits', manual: false, service: { name: w.clientA.client_id } });
});

test('problems fail per item with their error codes, and nothing of a failed item is created', async () => {
  const noManualWrite = await writer(app, ['food_write']);
  const res = await create([
    { label: 'Sleepiness', group: 'sleep', value_type: 8 }, // no sleep_write, but manual_write covers manual attributes
    { label: 'Naps', group: 'sleep', value_type: 0, manual: false }, // not manual: needs sleep_write
    { label: 'X', group: 'no_such_group', value_type: 0 },
    { label: 'Y', group: 'food' },
    { label: 'Z', group: 'food', value_type: 9 },
    { label: 'Z', group: 'food', value_type: '0' },
    { label: '!!!', group: 'food', value_type: 0 },
    { label: 5, group: 'food', value_type: 0 },
    { template: 'no_such_template' },
    { label: 'W', group: 'food', value_type: 0, manual: 'yes' },
  ]);
  expect(res.body.success.map((s: { name: string }) => s.name)).toEqual(['sleepiness']);
  expect(res.body.failed.map((f: { error_code: string }) => f.error_code)).toEqual([
    'forbidden_scope',
    'not_found',
    'missing_field',
    'validation',
    'invalid_type',
    'validation',
    'invalid_type',
    'not_found',
    'invalid_type',
  ]);
  expect(res.body.failed[2].error).toBe('Item 3 is missing required fields: value_type.');
  const withoutManual = await create([{ label: 'Snacks', group: 'custom', value_type: 0 }], '', noManualWrite.a);
  expect(withoutManual.body.failed[0].error_code).toBe('forbidden_scope');
  expect(await app.db('attributes').where({ user_id: noManualWrite.user.id }).count({ n: '*' })).toEqual([{ n: 0 }]);
});

test('the creating service owns the attribute and may write it at once', async () => {
  await create([{ label: 'Espressos', group: 'food', value_type: 0 }]);
  const res = await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: 'espressos', date: '2026-11-01', value: 2 }] });
  expect(res.status).toBe(200);
});
