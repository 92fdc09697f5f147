/**
 * Consumer contract of a read-only dashboard: it shows the person's profile, a week of their
 * attributes' values, one attribute's full history page by page, their averages, the correlations
 * Daybook is confident about, one pair's correlation (or that there is none) and the day's
 * insights. It reads with an OAuth2 token holding read scopes, through the typed v2 client.
 */
import { createDaybookClient, type DaybookClient } from '../client/src';
import { consumerPact } from './support/pact';
import { bearer, date, dateTime, group, headerInteger, listUrl, M, pageUrl, service } from './support/matchers';
import { STATES } from './support/states';

const pact = consumerPact('daybook-dashboard');
const SCOPE = 'activity_read sleep_read mood_read';
const auth = { Authorization: bearer('dashboard-access-token') };
const json = { 'Content-Type': 'application/json' };

const client = (url: string): DaybookClient => createDaybookClient({ baseUrl: url, credentials: { accessToken: 'dashboard-access-token' } });

/** A person who connected the dashboard, plus further states. */
function given(...states: string[]) {
  let builder = pact.given(STATES.person).given(STATES.connected, { scope: SCOPE });
  for (const state of states) builder = builder.given(state);
  return builder;
}

const correlation = {
  date: date('2026-11-16'),
  period: M.integer(365),
  offset: M.integer(0),
  attribute: M.string('steps'),
  attribute2: M.string('active_energy'),
  value: M.number(0.91),
  p: M.number(0.0000012),
  percentage: M.number(91),
  stars: M.integer(5),
  second_person: M.string('On days when you walk more, you burn more energy'),
  second_person_elements: [M.string('On days when you walk more,'), M.string('you burn more energy'), M.string('')],
  attribute_category: null,
  strength_description: M.string('Nearly always go together'),
  stars_description: M.string('Certain to be related'),
  description: null,
  occurrence: null,
  rating: null,
};

describe('a read-only dashboard', () => {
  test('shows the person profile and paces itself by the rate-limit headers', async () => {
    given()
      .uponReceiving('a request for the profile')
      .withRequest({ method: 'GET', path: '/api/2/accounts/profile/', headers: auth })
      .willRespondWith({
        status: 200,
        headers: { ...json, 'X-RateLimit-Limit': headerInteger(300), 'X-RateLimit-Remaining': headerInteger(299), 'X-RateLimit-Reset': headerInteger(3599) },
        body: {
          username: M.string('alice'),
          first_name: M.string('Alice'),
          last_name: M.string('Liddell'),
          avatar: M.string('https://daybook.example.org/avatars/alice.png'),
          timezone: M.string('UTC'),
          local_time: dateTime(),
          imperial_distance: M.boolean(false),
          imperial_weight: M.boolean(false),
          imperial_energy: M.boolean(false),
          imperial_liquid: M.boolean(false),
          imperial_temperature: M.boolean(false),
          trial: M.boolean(false),
          delinquent: M.boolean(false),
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).profile();
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.data.username).toBe('alice');
      expect(result.rateLimit).toMatchObject({ limit: 300, remaining: 299, reset: 3599 });
    });
  });

  test('shows a week of values of the attributes on the front page', async () => {
    given(STATES.fortnight)
      .uponReceiving('a request for steps and sleep with a week of values')
      .withRequest({ method: 'GET', path: '/api/2/attributes/with-values/', query: { attributes: 'steps,sleep', days: '7' }, headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: {
          count: M.integer(2),
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
            values: M.eachLike({ date: date(), value: M.integer(8000) }, 7),
          }),
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).attributesWithValues({ attributes: 'steps,sleep', days: 7 });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.data.results[0].values).toHaveLength(7);
    });
  });

  test('walks every page of one attribute history by following next', async () => {
    const route = '/api/2/attributes/values/';
    given(STATES.fortnight)
      .uponReceiving('a request for the first page of the steps values')
      .withRequest({ method: 'GET', path: route, query: { attribute: 'steps', limit: '7' }, headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: {
          count: M.integer(14),
          next: pageUrl(route, 'attribute=steps&limit=7', 2),
          previous: null,
          results: M.eachLike({ date: date(), value: M.integer(8000) }, 7),
        },
      });
    given(STATES.fortnight)
      .uponReceiving('a request for the second and last page of the steps values')
      .withRequest({ method: 'GET', path: route, query: { attribute: 'steps', limit: '7', page: '2' }, headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: {
          count: M.integer(14),
          next: null,
          previous: listUrl(route, '?attribute=steps&limit=7'),
          results: M.eachLike({ date: date('2026-11-13'), value: M.integer(8000) }, 7),
        },
      });
    await pact.executeTest(async (server) => {
      const api = client(server.url);
      const result = await api.all(api.values, { attribute: 'steps', limit: 7 });
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.data).toHaveLength(14);
    });
  });

  test("shows the week's averages", async () => {
    given(STATES.derived)
      .uponReceiving('a request for the latest averages')
      .withRequest({ method: 'GET', path: '/api/2/averages/', headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: {
          count: M.integer(4),
          next: null,
          previous: null,
          results: M.eachLike({
            attribute: M.string('steps'),
            date: date('2026-11-16'),
            overall: M.number(8012.5),
            monday: M.number(7990),
            tuesday: M.number(8100),
            wednesday: M.number(8050.5),
            thursday: M.number(7900),
            friday: M.number(8200),
            saturday: M.number(8000),
            sunday: M.number(7950),
          }),
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).averages();
      expect(result.ok && result.data.results[0].attribute).toBe('steps');
    });
  });

  test('lists only the correlations Daybook is confident about', async () => {
    given(STATES.derived)
      .uponReceiving('a request for the five-star correlations')
      .withRequest({ method: 'GET', path: '/api/2/correlations/', query: { confident: '1' }, headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: { count: M.integer(1), next: null, previous: null, results: M.eachLike({ ...correlation, stars: M.equal(5) }) },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).correlations({ confident: '1' });
      expect(result.ok && result.data.results.every((c) => c.stars === 5)).toBe(true);
    });
  });

  test('shows how two attributes go together', async () => {
    given(STATES.derived)
      .uponReceiving('a request for the correlation of steps and active energy')
      .withRequest({ method: 'GET', path: '/api/2/correlations/combo/', query: { attribute: 'steps', attribute2: 'active_energy' }, headers: auth })
      .willRespondWith({ status: 200, headers: json, body: M.like(correlation) });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).correlationCombo({ attribute: 'steps', attribute2: 'active_energy' });
      expect(result.ok && result.data.attribute).toBe('steps');
    });
  });

  test('says so when two attributes have no correlation, reading the error body', async () => {
    given(STATES.derived)
      .uponReceiving('a request for the correlation of steps and an attribute never tracked')
      .withRequest({ method: 'GET', path: '/api/2/correlations/combo/', query: { attribute: 'steps', attribute2: 'weight' }, headers: auth })
      .willRespondWith({ status: 404, headers: json, body: { detail: M.string('There is no correlation between steps and weight.') } });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).correlationCombo({ attribute: 'steps', attribute2: 'weight' });
      expect(result.ok).toBe(false);
      if (!result.ok) expect([result.status, result.error.detail]).toEqual([404, 'There is no correlation between steps and weight.']);
    });
  });

  test("shows the day's insights, by priority", async () => {
    given(STATES.recordHigh)
      .uponReceiving('a request for the day-level insights')
      .withRequest({ method: 'GET', path: '/api/2/insights/', query: { priority: '2' }, headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: {
          count: M.integer(1),
          next: null,
          previous: null,
          results: M.eachLike({
            created: dateTime('2026-11-20T12:00:00.000Z'),
            target_date: date('2026-11-19'),
            type: {
              name: M.string('record_high'),
              period: M.integer(1),
              priority: M.equal(2),
              attribute: {
                name: M.string('steps'),
                label: M.string('Steps'),
                group: group('activity', 'Activity', 1),
                priority: M.integer(1),
                value_type: M.integer(0),
                value_type_description: M.string('Integer'),
              },
            },
            html: M.string('<p>Yesterday you walked <strong>12,000</strong> steps, your highest in a year.</p>'),
            text: M.string('Yesterday you walked 12,000 steps, your highest in a year.'),
          }),
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).insights({ priority: 2 });
      expect(result.ok && result.data.results[0].type.priority).toBe(2);
    });
  });
});
