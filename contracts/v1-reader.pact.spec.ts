/**
 * Consumer contract of a version 1 reader: an older app that signs in with the person's username
 * and password for a simple token, then reads `$self`'s profile (learning from its headers that
 * version 1 is deprecated, and where version 2 is documented), today's values and the last days
 * of an attribute, where a day without data is `null`.
 */
import { createV1Client, type V1Client } from '../client/src';
import { consumerPact } from './support/pact';
import { date, dateTime, M, simpleToken } from './support/matchers';
import { STATES } from './support/states';

const pact = consumerPact('daybook-v1-reader');
const auth = { Authorization: simpleToken('v1-simple-token') };
const json = { 'Content-Type': 'application/json' };
/** RFC 9745's Structured Field Date, and the successor's documentation (any host: it comes from PUBLIC_URL or the request). */
const deprecated = {
  Deprecation: M.regex('^@\\d+$', '@1795305600'),
  Link: M.regex('^<https?://[^>]+/docs/v2/>; rel="successor-version"$', '<https://daybook.example.org/docs/v2/>; rel="successor-version"'),
};

const client = (url: string): V1Client => createV1Client({ baseUrl: url, auth: { simpleToken: 'v1-simple-token' } });

const user = {
  id: M.integer(42),
  username: M.string('alice'),
  first_name: M.string('Alice'),
  last_name: M.string('Liddell'),
  bio: M.string('Walks a lot.'),
  url: M.string('https://alice.example.org/'),
  avatar: M.string('https://daybook.example.org/avatars/alice.png'),
  timezone: M.string('UTC'),
  local_time: dateTime(),
  private: M.boolean(false),
  imperial_units: M.boolean(false),
  imperial_distance: M.boolean(false),
  imperial_weight: M.boolean(false),
  imperial_energy: M.boolean(false),
  imperial_liquid: M.boolean(false),
  imperial_temperature: M.boolean(false),
};

describe('a version 1 reader', () => {
  test('gets a simple token from the username and password', async () => {
    pact
      .given(STATES.person)
      .uponReceiving('a simple token request')
      .withRequest({
        method: 'POST',
        path: '/api/1/auth/simple-token/',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: { username: M.string('alice'), password: M.string('correct horse battery staple') },
      })
      .willRespondWith({ status: 200, headers: json, body: { token: M.string('v1-simple-token') } });
    await pact.executeTest(async (server) => {
      const result = await createV1Client({ baseUrl: server.url }).simpleToken({ username: 'alice', password: 'correct horse battery staple' });
      expect(result.ok && result.data.token).toBe('v1-simple-token');
    });
  });

  test("reads $self's profile", async () => {
    pact
      .given(STATES.person)
      .uponReceiving("a request for $self's profile")
      .withRequest({ method: 'GET', path: '/api/1/users/$self/profile/', headers: auth })
      .willRespondWith({ status: 200, headers: { ...json, ...deprecated }, body: { ...user, attributes: [] } });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).profile();
      expect(result.ok && result.data.username).toBe('alice');
    });
  });

  test("reads today's values, by group", async () => {
    pact
      .given(STATES.person)
      .given(STATES.fortnight)
      .uponReceiving("a request for $self's today")
      .withRequest({ method: 'GET', path: '/api/1/users/$self/today/', headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: {
          ...user,
          attributes: M.eachLike({
            group: M.string('activity'),
            label: M.string('Activity'),
            priority: M.integer(1),
            items: M.eachLike({
              attribute: M.string('steps'),
              label: M.string('Steps'),
              value: M.integer(8000),
              service: M.string('step-counter'),
              priority: M.integer(1),
              private: M.boolean(false),
              value_type: M.integer(0),
              value_type_description: M.string('Integer'),
            }),
          }),
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).today();
      expect(result.ok && result.data.attributes[0].items[0].attribute).toBe('steps');
    });
  });

  test('reads the last three days of steps, with null on the day without data', async () => {
    pact
      .given(STATES.person)
      .given(STATES.gap)
      .uponReceiving("a request for $self's steps over the last three days")
      .withRequest({ method: 'GET', path: '/api/1/users/$self/attributes/', query: { attributes: 'steps', limit: '3' }, headers: auth })
      .willRespondWith({
        status: 200,
        headers: json,
        body: [
          {
            attribute: 'steps',
            label: M.string('Steps'),
            group: { name: M.string('activity'), label: M.string('Activity'), priority: M.integer(1) },
            service: M.string('step-counter'),
            private: M.boolean(false),
            values: [
              { value: M.integer(9000), date: date('2026-11-20') },
              { value: null, date: date('2026-11-19') },
              { value: M.integer(7000), date: date('2026-11-18') },
            ],
          },
        ],
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).attributes({ attributes: 'steps', limit: 3 });
      expect(result.ok && result.data[0].values.map((v) => v.value === null)).toEqual([false, true, false]);
    });
  });

  test("walks one attribute's values day by day, with null on the day without data", async () => {
    pact
      .given(STATES.person)
      .given(STATES.gap)
      .uponReceiving("a request for one attribute's values of $self, three days a page")
      .withRequest({ method: 'GET', path: '/api/1/users/$self/attributes/steps/', query: { limit: '3' }, headers: auth })
      .willRespondWith({
        status: 200,
        headers: { ...json, ...deprecated },
        body: {
          count: 3,
          next: null,
          previous: null,
          results: [
            { value: M.integer(9000), date: date('2026-11-20') },
            { value: null, date: date('2026-11-19') },
            { value: M.integer(7000), date: date('2026-11-18') },
          ],
        },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).attributeValues('steps', { limit: 3 });
      expect(result.ok && result.data.results.map((v) => v.value === null)).toEqual([false, true, false]);
    });
  });
});
