/** What one webhook attempt got (send.ts makes it; deliveries.ts records it, stats.ts counts it). */
export interface AttemptResult {
  /** The HTTP status, or null when none came. */
  status: number | null;
  /**
   * What went wrong before a status came, or null: one of ATTEMPT_ERRORS, shown to the app's owner
   * (page, API, `last_error`), so it names no socket detail (docs/security.md, "Webhook URLs").
   */
  error: string | null;
  /** The error as the socket reported it, for the server log only (never stored, never shown). */
  detail?: string;
  latencyMs: number;
}

/**
 * Every error an owner may read. One message for every connection failure: "ECONNREFUSED" against
 * "socket hang up" would tell a closed port from an open one (a port scanner).
 */
export const ATTEMPT_ERRORS = {
  timeout: 'timed out',
  refused: 'refused: the host has a loopback, private or reserved address',
  notFound: 'host not found',
  tls: 'TLS error',
  connection: 'connection failed',
} as const;
