/**
 * The demo account of an embedded first start: `demo`, with a random password printed once, and a
 * year of the demo generator's data, so the service has something to show straight away.
 */
import type { Knex } from 'knex';
import { loadDemoData } from './demo-data';
import { newSecret } from '../domain/identity/credentials';
import { createUser, findUserByUsername } from '../domain/identity/users';
import { localDate } from '../domain/time';

export const DEMO_USERNAME = 'demo';

/** The demo account's credentials, as made on the first start. */
export interface DemoAccount {
  username: string;
  password: string;
  simpleToken: string;
  values: number;
}

/** Creates the demo account unless it exists; returns its credentials when it was created now. */
export async function ensureDemoAccount(db: Knex, secretKey: string, now: Date): Promise<DemoAccount | undefined> {
  if (await findUserByUsername(db, DEMO_USERNAME)) return undefined;
  const password = newSecret(12);
  const { user, simpleToken } = await createUser(db, { username: DEMO_USERNAME, password }, secretKey);
  const loaded = await loadDemoData(db, user.id, { seed: 1, days: 365, endDate: localDate(now, user.timezone) });
  return { username: DEMO_USERNAME, password, simpleToken, values: loaded.values };
}
