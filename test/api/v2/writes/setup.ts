/** A person with two connected services, for the write tests. */
import type { TestApp } from '../../../support/app';
import { makeClient, makeToken, makeUser } from '../../../support/fixtures';
import type { User } from '../../../../src/domain/identity/users';

export const ALL_WRITE = [
  'activity_read',
  'activity_write',
  'mood_read',
  'mood_write',
  'sleep_read',
  'sleep_write',
  'health_read',
  'health_write',
  'custom_read',
  'custom_write',
  'food_read',
  'food_write',
  'weather_read',
  'weather_write',
  'location_read',
  'location_write',
  'productivity_read',
  'productivity_write',
];

export interface Writer {
  user: User;
  simpleToken: string;
  /** Bearer token of service A with `scopes`. */
  a: string;
  /** Bearer token of service B (same scopes). */
  b: string;
  clientA: { id: number; client_id: string };
  clientB: { id: number; client_id: string };
}

export async function writer(app: TestApp, scopes: string[] = ALL_WRITE, timezone?: string): Promise<Writer> {
  const { user, simpleToken } = await makeUser(app, { timezone });
  const { client: clientA } = await makeClient(app, user, 'Service A');
  const { client: clientB } = await makeClient(app, user, 'Service B');
  const a = (await makeToken(app, user, clientA, scopes)).access_token;
  const b = (await makeToken(app, user, clientB, scopes)).access_token;
  return { user, simpleToken, a, b, clientA, clientB };
}

/** The stored value of a day, as the API would show it (via the values endpoint). */
export async function valueOn(app: TestApp, w: Writer, attribute: string, date: string): Promise<unknown> {
  const res = await app.get(`/api/2/attributes/values/?attribute=${attribute}&date_max=${date}&limit=1`, { token: w.simpleToken });
  const first = res.body.results[0];
  return first && first.date === date ? first.value : null;
}

export async function acquire(app: TestApp, bearer: string, templates: string[]): Promise<void> {
  const res = await app.post('/api/2/attributes/acquire/', { bearer, json: templates.map((template) => ({ template })) });
  if (res.status !== 200) throw new Error(`acquire failed: ${JSON.stringify(res.body)}`);
}
