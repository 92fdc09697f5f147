/** What one webhook attempt got (send.ts makes it; deliveries.ts records it, stats.ts counts it). */
export interface AttemptResult {
  /** The HTTP status, or null when none came. */
  status: number | null;
  /** What went wrong before a status came (a timeout, a refused address, a connection error), or null. */
  error: string | null;
  latencyMs: number;
}
