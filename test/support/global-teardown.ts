/** Jest global tear-down: stops the embedded test clusters (their folders stay for the next run). */
export default async function globalTeardown(): Promise<void> {
  await Promise.all((globalThis.daybookClusters ?? []).map((cluster) => cluster.stop()));
}
