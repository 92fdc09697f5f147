/**
 * The provider states of contracts/README.md, each set up through the domain functions the service
 * itself uses (accounts, clients, tokens and codes, batch writes, demo data, the derive and insight
 * runs) on the verification's own database. Every interaction starts from an empty `World`: it gets
 * a new person, so interactions never see each other's data.
 *
 * The request filter (see provider.pact.test.ts) puts the World's credentials into each request in
 * place of the example credentials the contracts carry.
 */
import type { Knex } from 'knex';
import type { TestApp } from '../support/app';
import { STATES, REDIRECT_URI, type StateName } from '../../contracts/support/states';
import { createUser, type User } from '../../src/domain/identity/users';
import { createClient, type OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { issueTokens, type TokenResponse } from '../../src/domain/apps-and-grants/tokens';
import { issueAuthorisationCode } from '../../src/domain/apps-and-grants/grants';
import { accessFor } from '../../src/domain/apps-and-grants/scopes';
import { addDays, localDate } from '../../src/domain/time';
import type { BatchResult, Item } from '../../src/domain/tracking/writes/batch';
import type { WriteContext } from '../../src/domain/tracking/writes/context';
import { poolDatabase, type Database } from '../../src/db/database';
import { acquireAttributes } from '../../src/domain/tracking/writes/ownership';
import { updateValues } from '../../src/domain/tracking/writes/values';
import { loadDemoData } from '../../src/demo/demo-data';
import { deriveUser, generateInsights } from '../../src/analytics/derive';
import { createEndpoint, type WebhookEndpoint } from '../../src/domain/webhooks/endpoints';
import { EVENT_TYPES } from '../../src/domain/webhooks/events';
import { disconnectApp } from '../../src/domain/apps-and-grants/connected-apps';

export const PASSWORD = 'correct horse battery staple';

/** A service connected to the person, with its token. */
interface Service {
  client: OAuthClient;
  secret: string;
  scopes: string[];
}

/** What the current interaction's states have set up. */
export interface World {
  person?: { user: User; simpleToken: string };
  /** The consumer's own OAuth2 client. */
  client?: Service;
  /** The consumer's tokens for the person (sent for `Bearer` and `refresh_token`). */
  tokens?: TokenResponse;
  /** An unused authorisation code for the consumer's client. */
  code?: string;
  /** Other services that write the person's data (by name). */
  services: Map<string, Service>;
  /** The consumer's webhook endpoint (webhook-messages.ts reads its deliveries). */
  endpoint?: WebhookEndpoint;
}

export const emptyWorld = (): World => ({ services: new Map() });

type Params = { scope?: string } | undefined;
export type StateSetup = (params?: Params) => Promise<undefined>;

let people = 0;

/** The state handlers, keyed by state name; `world()` is the current interaction's World. */
export function providerStates(app: TestApp, world: () => World): Record<StateName, StateSetup> {
  const db: Knex = app.db;
  const now = () => app.deps.now();

  async function person() {
    const w = world();
    if (!w.person) {
      people += 1;
      w.person = await createUser(db, { username: `contract_person_${people}`, password: PASSWORD, timezone: 'UTC' }, app.deps.secretKey);
    }
    return w.person.user;
  }

  const today = async () => localDate(now(), (await person()).timezone);

  async function registerClient(name: string, scopes: string[]): Promise<Service> {
    const { client, clientSecret } = await createClient(db, { ownerUserId: (await person()).id, name, redirectUris: [REDIRECT_URI] });
    return { client, secret: clientSecret!, scopes };
  }

  /** The consumer's client (registered once per interaction). */
  async function consumerClient(scope?: string): Promise<Service> {
    const w = world();
    w.client ??= await registerClient('Contract Client', []);
    if (scope) w.client.scopes = scope.split(' ');
    return w.client;
  }

  /** A service the person connected (a live token), e.g. the step counter that writes the data readers read. */
  async function connectedService(name: string, scopes: string[]): Promise<Service> {
    const w = world();
    let service = w.services.get(name);
    if (!service) {
      service = await registerClient(name, scopes);
      await issueTokens(db, { userId: (await person()).id, clientPk: service.client.id, scopes, now: now() });
      w.services.set(name, service);
    }
    return service;
  }

  /** Runs batch items as `service` through the write rules; fails loudly if any item fails. */
  async function write(service: Service, apply: (db: Knex, context: WriteContext, items: Item[]) => Promise<BatchResult<unknown>>, items: Item[]) {
    const user = await person();
    const context: WriteContext = { userId: user.id, clientPk: service.client.id, access: accessFor(service.scopes), now: now(), today: await today() };
    const result = await apply(db, context, items);
    if (result.failed.length > 0) throw new Error(`Seeding failed: ${JSON.stringify(result.failed)}`);
  }

  /** A value writer (which runs on a Database) as a seeding step on the pool. */
  const viaPool =
    (writer: (db: Database, context: WriteContext, items: Item[]) => Promise<BatchResult<unknown>>) => (knex: Knex, context: WriteContext, items: Item[]) =>
      writer(poolDatabase(knex), context, items);

  const stepCounter = () => connectedService('Step Counter', ['activity_read', 'activity_write', 'sleep_read', 'sleep_write']);

  /** `value(daysAgo)` for each of the `days` days up to today, as update items of `name`. */
  async function daily(name: string, days: number, value: (daysAgo: number) => number | undefined): Promise<Item[]> {
    const last = await today();
    const items: Item[] = [];
    for (let ago = 0; ago < days; ago++) {
      const v = value(ago);
      if (v !== undefined) items.push({ name, date: addDays(last, -ago), value: v });
    }
    return items;
  }

  return {
    async [STATES.person]() {
      await person();
      return undefined;
    },

    async [STATES.connected](params) {
      const client = await consumerClient(params?.scope);
      world().tokens = await issueTokens(db, { userId: (await person()).id, clientPk: client.client.id, scopes: client.scopes, now: now() });
      return undefined;
    },

    async [STATES.fortnight]() {
      const service = await stepCounter();
      await write(service, viaPool(acquireAttributes), [{ template: 'steps' }, { template: 'sleep' }]);
      await write(service, viaPool(updateValues), [...(await daily('steps', 14, (ago) => 8000 + 37 * ago)), ...(await daily('sleep', 14, (ago) => 420 + ago))]);
      return undefined;
    },

    async [STATES.derived]() {
      const user = await person();
      await loadDemoData(db, user.id, { seed: 7, days: 372, endDate: await today(), attributes: ['steps', 'active_energy', 'sleep', 'mood'], rhythms: false });
      await deriveUser(db, user.id, { now: now() });
      return undefined;
    },

    async [STATES.recordHigh]() {
      const service = await stepCounter();
      await write(service, viaPool(acquireAttributes), [{ template: 'steps' }]);
      await write(service, viaPool(updateValues), await daily('steps', 400, (ago) => (ago === 0 ? undefined : ago === 1 ? 12000 : 8000)));
      await generateInsights(db, (await person()).id, { now: now() });
      return undefined;
    },

    async [STATES.ownsSteps]() {
      await write(await consumerClient(), viaPool(acquireAttributes), [{ template: 'steps' }]);
      return undefined;
    },

    async [STATES.walkedToday]() {
      await write(await consumerClient(), viaPool(updateValues), [{ name: 'steps', date: await today(), value: 4000 }]);
      return undefined;
    },

    async [STATES.otherOwnsSleep]() {
      const sleepTracker = await connectedService('Sleep Tracker', ['sleep_read', 'sleep_write']);
      await write(sleepTracker, viaPool(acquireAttributes), [{ template: 'sleep' }]);
      return undefined;
    },

    async [STATES.gap]() {
      const service = await stepCounter();
      await write(service, viaPool(acquireAttributes), [{ template: 'steps' }]);
      await write(service, viaPool(updateValues), await daily('steps', 3, (ago) => [9000, undefined, 7000][ago]));
      return undefined;
    },

    async [STATES.registered]() {
      await consumerClient();
      return undefined;
    },

    async [STATES.code](params) {
      const client = await consumerClient(params?.scope);
      world().code = await issueAuthorisationCode(db, {
        userId: (await person()).id,
        clientPk: client.client.id,
        redirectUri: REDIRECT_URI,
        scopes: client.scopes,
        now: now(),
      });
      return undefined;
    },

    async [STATES.tookOverSleep]() {
      await write(await consumerClient(), viaPool(acquireAttributes), [{ name: 'sleep' }]);
      return undefined;
    },

    async [STATES.endpoint]() {
      const client = await consumerClient();
      // A loopback URL: allowed outside production, and nothing is sent to it (the verification reads the delivery).
      world().endpoint = await createEndpoint(db, client.client.id, { url: 'http://localhost:4100/daybook/webhooks', events: [...EVENT_TYPES] }, true);
      return undefined;
    },

    async [STATES.disconnected]() {
      const client = await consumerClient();
      await disconnectApp(db, (await person()).id, client.client.client_id, now());
      return undefined;
    },

    async [STATES.refresh](params) {
      const client = await consumerClient(params?.scope);
      world().tokens = await issueTokens(db, { userId: (await person()).id, clientPk: client.client.id, scopes: client.scopes, now: now() });
      return undefined;
    },
  };
}
