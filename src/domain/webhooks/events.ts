/** The webhook event types (docs/webhooks.md; each documented under the v2 document's `webhooks`). */

export const EVENT_TYPES = ['values.updated', 'attribute.ownership_changed', 'derived.updated', 'grant.revoked'] as const;

/** An event type an endpoint subscribes to. */
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The test event: sent to one endpoint when its app or owner asks (docs/webhooks.md, "Testing an
 * endpoint"), whatever the endpoint's event types; never subscribed to.
 */
export const TEST_EVENT = 'webhook.test';

/** Any event type a delivery carries: the subscribed ones and the test event. */
export type DeliveredEventType = EventType | typeof TEST_EVENT;

export function isEventType(name: string): name is EventType {
  return (EVENT_TYPES as readonly string[]).includes(name);
}

/** What each event tells, for the app page's choice. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'values.updated': "A person's days whose values changed, per attribute",
  'attribute.ownership_changed': 'An attribute was acquired, released, handed over or made inactive',
  'derived.updated': "A person's new averages, correlations or insights",
  'grant.revoked': 'The person disconnected the app',
};
