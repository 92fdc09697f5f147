/** Jest global tear-down: stops this run's embedded test clusters and deletes their folders. */
import { removeClusterDirs } from './clusters';

export default async function globalTeardown(): Promise<void> {
  const clusters = globalThis.daybookClusters ?? [];
  await Promise.all(clusters.map((cluster) => cluster.stop()));
  removeClusterDirs(clusters.length);
}
