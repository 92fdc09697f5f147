/** How webhooks are delivered (read from WEBHOOK_* in src/config.ts). */
export interface WebhookSettings {
  /** WEBHOOK_COALESCE_MS: a person's value changes wait this long after the first, to make one event. */
  coalesceMs: number;
  /** WEBHOOK_POLL_MS: how often each worker looks at the outbox. */
  pollMs: number;
  /** WEBHOOK_RETRY_DELAY_SECONDS: the first retry's delay; each next one doubles (pg-boss adds up to as much again at random). */
  retryDelaySeconds: number;
  /** Retries after the first attempt: with 5 s doubling, 14 retries span about 24 hours. */
  retryLimit: number;
  /** WEBHOOK_TIMEOUT_MS: an attempt, connection included, is cut off after this long. */
  timeoutMs: number;
  /** WEBHOOK_EXPIRE_SECONDS: a delivery job still running after this long (its worker died) is retried; above the timeout. */
  expireSeconds: number;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: endpoints on loopback and private addresses are called (off: only public ones). */
  allowPrivate: boolean;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  coalesceMs: 2000,
  pollMs: 1000,
  retryDelaySeconds: 5,
  retryLimit: 14,
  timeoutMs: 5000,
  expireSeconds: 60,
  allowPrivate: false,
};
