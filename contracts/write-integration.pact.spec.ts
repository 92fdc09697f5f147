/**
 * Consumer contract of a write integration: a step counter that writes the person's steps. It
 * takes ownership of its attribute by template, creates a custom tag, writes daily totals in
 * batches (and reads per-item failures), adds to today's total, lets go of what it owns (and learns
 * that it cannot release what another service owns), and lists what it owns.
 */
import { createDaybookClient, type DaybookClient } from '../client/src';
import { consumerPact } from './support/pact';
import { bearer, date, group, M, service } from './support/matchers';
import { STATES } from './support/states';

const pact = consumerPact('daybook-write-integration');
const SCOPE = 'activity_read activity_write sleep_read sleep_write custom_read custom_write';
const headers = { Authorization: bearer('step-counter-access-token'), 'Content-Type': 'application/json' };
const json = { 'Content-Type': 'application/json' };

const client = (url: string): DaybookClient => createDaybookClient({ baseUrl: url, credentials: { accessToken: 'step-counter-access-token' } });

/** A person who connected the step counter, plus further states. */
function given(...states: string[]) {
  let builder = pact.given(STATES.person).given(STATES.connected, { scope: SCOPE });
  for (const state of states) builder = builder.given(state);
  return builder;
}

describe('a write integration', () => {
  test('takes ownership of the steps attribute by its template', async () => {
    given()
      .uponReceiving('a request to acquire steps by template')
      .withRequest({ method: 'POST', path: '/api/2/attributes/acquire/', headers, body: [{ template: 'steps' }] })
      .willRespondWith({ status: 200, headers: json, body: { success: [{ name: 'steps', active: true }], failed: [] } });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).acquire([{ template: 'steps' }]);
      expect(result.ok && result.data.success).toEqual([{ name: 'steps', active: true }]);
    });
  });

  test('creates a custom tag and learns the name Daybook gave it', async () => {
    const item = { label: 'Walked the dog', group: 'custom', value_type: 0 };
    given()
      .uponReceiving('a request to create a custom attribute')
      .withRequest({ method: 'POST', path: '/api/2/attributes/create/', headers, body: [item] })
      .willRespondWith({ status: 200, headers: json, body: { success: [{ ...item, name: M.regex('^[a-z0-9_]+$', 'walked_the_dog') }], failed: [] } });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).create([item]);
      expect(result.ok && result.data.success[0].name).toBe('walked_the_dog');
    });
  });

  test('writes a batch of daily totals and reads which item failed and why', async () => {
    given(STATES.ownsSteps)
      .uponReceiving('a batch update where the second item lacks its date')
      .withRequest({
        method: 'POST',
        path: '/api/2/attributes/update/',
        headers,
        body: [
          { name: 'steps', date: date('2026-11-19'), value: M.integer(9500) },
          { name: 'steps', value: M.integer(4000) },
        ],
      })
      .willRespondWith({
        status: 202,
        headers: json,
        body: {
          success: [{ name: 'steps', date: date('2026-11-19'), value: M.integer(9500) }],
          failed: [{ name: 'steps', value: M.integer(4000), error: M.string('Item 1 is missing required fields: date.'), error_code: 'missing_field' }],
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).update([
        { name: 'steps', date: '2026-11-19', value: 9500 },
        { name: 'steps', value: 4000 },
      ]);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.status).toBe(202);
      expect(result.data.failed.map((f) => f.error_code)).toEqual(['missing_field']);
    });
  });

  test("adds to today's total and reads the new total", async () => {
    given(STATES.ownsSteps, STATES.walkedToday)
      .uponReceiving("a request to add 500 to today's steps")
      .withRequest({ method: 'POST', path: '/api/2/attributes/increment/', headers, body: [{ name: 'steps', value: M.integer(500) }] })
      .willRespondWith({
        status: 200,
        headers: json,
        body: { success: [{ name: 'steps', value: M.integer(500), date: date(), current: M.integer(4500) }], failed: [] },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).increment([{ name: 'steps', value: 500 }]);
      expect(result.ok && result.data.success[0].current).toBe(4500);
    });
  });

  test('lets go of an attribute it owns', async () => {
    given(STATES.ownsSteps)
      .uponReceiving('a request to release steps, which the client owns')
      .withRequest({ method: 'POST', path: '/api/2/attributes/release/', headers, body: [{ name: 'steps' }] })
      .willRespondWith({ status: 200, headers: json, body: { success: [{ name: 'steps' }], failed: [] } });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).release([{ name: 'steps' }]);
      expect(result.ok && result.data.success).toEqual([{ name: 'steps' }]);
    });
  });

  test('cannot release an attribute another service owns', async () => {
    given(STATES.otherOwnsSleep)
      .uponReceiving('a request to release sleep, which another service owns')
      .withRequest({ method: 'POST', path: '/api/2/attributes/release/', headers, body: [{ name: 'sleep' }] })
      .willRespondWith({
        status: 202,
        headers: json,
        body: { success: [], failed: [{ name: 'sleep', error: M.string('Attribute sleep does not belong to this service.'), error_code: 'unauthorised' }] },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).release([{ name: 'sleep' }]);
      expect(result.ok && result.status === 202 && result.data.failed[0].error_code).toBe('unauthorised');
    });
  });

  test('lists the attributes it owns', async () => {
    given(STATES.ownsSteps)
      .uponReceiving('a request for the attributes the client owns')
      .withRequest({ method: 'GET', path: '/api/2/attributes/owned/', headers: { Authorization: headers.Authorization } })
      .willRespondWith({
        status: 200,
        headers: json,
        body: {
          count: M.integer(1),
          next: null,
          previous: null,
          results: M.eachLike({
            template: M.string('steps'),
            name: M.string('steps'),
            label: M.string('Steps'),
            group: group('activity', 'Activity', 1),
            service: service('step-counter', 'Step Counter'),
            active: M.boolean(true),
            priority: M.integer(1),
            manual: M.boolean(false),
            value_type: M.integer(0),
            value_type_description: M.string('Integer'),
            available_services: M.eachLike(service('step-counter', 'Step Counter')),
          }),
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).owned();
      expect(result.ok && result.data.results.map((a) => a.name)).toEqual(['steps']);
    });
  });
});
