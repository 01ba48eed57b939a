// `lagwatch/prom-client`: lagwatch's metrics in an app's own prom-client registry. The registry is
// described by the methods lagwatch calls, so that these types need neither prom-client's (an
// optional peer dependency) nor Node's.
import type { MonitorSet } from './index.js';

/** What lagwatch needs of a prom-client `Registry` (prom-client 14 and 15). */
export interface PromClientRegistry {
  registerMetric(metric: any): void;
  getSingleMetric(name: string): any;
  removeSingleMetric(name: string): void;
}

export interface CollectLagwatchMetricsOptions {
  /** Default: prom-client's global `register`. */
  register?: PromClientRegistry;
  /** Default: `lagwatch.current()`, the running set of this thread. */
  set?: MonitorSet;
}

/** Puts lagwatch's metrics into the registry, each read when it is scraped; returns the function
 * that takes them out again. */
export function collectLagwatchMetrics(options?: CollectLagwatchMetricsOptions): () => void;
