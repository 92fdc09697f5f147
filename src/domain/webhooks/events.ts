/** The webhook event types (docs/webhooks.md; each documented under the v2 document's `webhooks`). */

export const EVENT_TYPES = ['values.updated', 'attribute.ownership_changed', 'derived.updated', 'grant.revoked'] as const;

export type EventType = (typeof EVENT_TYPES)[number];

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
