/**
 * The provider-state vocabulary shared by the consumer contracts and the provider verification
 * (test/contract/provider-states.ts implements each one). contracts/README.md lists them with what
 * each sets up; add a state there, here and in the provider together.
 */
export const STATES = {
  /** A person with an account (UTC), a password and a simple token. */
  person: 'a person uses Daybook',
  /** The person authorised the consumer's OAuth2 client; params: `scope` (space-separated v2 scopes). */
  connected: 'the person connected the client',
  /** Steps (about 8000) and sleep (about 420 minutes) on each of the 14 days up to today, written by a step-counter service. */
  fortnight: 'the person tracked steps and sleep on each of the last 14 days',
  /** A year of steps, active energy, sleep and mood with planted relationships, and this week's derived averages and correlations. */
  derived: "the person has a year of steps, active energy, sleep and mood with this week's averages and correlations",
  /** 400 days of 8000 steps, 12000 yesterday, and the day's insights generated. */
  recordHigh: "the person's steps hit a record high yesterday",
  /** The consumer's client acquired the person's steps attribute (connected with the given scope first). */
  ownsSteps: "the client owns the person's steps attribute",
  /** 4000 steps today (written by the steps attribute's owner). */
  walkedToday: 'the person walked 4000 steps today',
  /** Another connected service acquired the person's sleep attribute. */
  otherOwnsSleep: "another service owns the person's sleep attribute",
  /** Steps today (9000) and two days ago (7000), nothing yesterday. */
  gap: 'the person tracked steps today and two days ago but not yesterday',
  /** The consumer's OAuth2 client is registered (redirect URI https://client.example.org/callback). */
  registered: 'the client is registered',
  /** The person approved the client: an unused authorisation code; params: `scope`. */
  code: 'the client holds an authorisation code for the person',
  /** The client holds a live access and refresh token pair for the person; params: `scope`. */
  refresh: 'the client holds a refresh token for the person',
  /** The consumer's client acquired the person's sleep attribute, which another service owned (a hand-over). */
  tookOverSleep: "the client took the person's sleep attribute over from another service",
  /** The consumer's client has an enabled webhook endpoint subscribed to every event type (needs a registered client). */
  endpoint: 'the client has a webhook endpoint for every event',
  /** The person disconnected the consumer's client (its grant ended). */
  disconnected: 'the person disconnected the client',
} as const;

export type StateName = (typeof STATES)[keyof typeof STATES];

/** The redirect URI the contracts' OAuth2 client registered. */
export const REDIRECT_URI = 'https://client.example.org/callback';

/**
 * The webhook messages of the receiver contract, by event type: the description each message has
 * in the pact, which the provider verification uses to produce that event
 * (test/contract/webhook-messages.ts).
 */
export const WEBHOOK_MESSAGES = {
  'values.updated': "a values.updated event for the person's steps",
  'attribute.ownership_changed': 'an attribute.ownership_changed event when the client takes sleep over from another service',
  'derived.updated': "a derived.updated event for the person's new averages and correlations",
  'grant.revoked': 'a grant.revoked event when the person disconnects the client',
} as const;

export type WebhookMessageType = keyof typeof WEBHOOK_MESSAGES;
