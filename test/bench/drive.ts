/**
 * One measurement: autocannon drives one scenario against one server for a while at a fixed
 * number of connections (closed loop: each connection sends its next request when the answer
 * arrives), each request carrying the next token of the list, so the load is spread over many
 * users. Latencies are kept exactly (autocannon's own histogram counts whole milliseconds, too
 * coarse for answers of one or two), from which the percentiles are taken.
 */
import autocannon from 'autocannon';
import { nextBody, type Scenario } from './scenarios';

export interface DriveResult {
  /** Answers received with the expected status (200). */
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  p999: number;
  mean: number;
  max: number;
  /** Anything but a 200 (a 202 is a batch with failed items), connection errors and timeouts. */
  errors: number;
  statuses: Record<string, number>;
  bytesPerResponse: number;
}

/** The q-quantile of sorted values (nearest rank). */
export function quantile(sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export async function drive(input: { port: number; scenario: Scenario; tokens: string[]; connections: number; seconds: number }): Promise<DriveResult> {
  const { scenario, tokens } = input;
  const headers = tokens.map((token) => ({
    authorization: `Bearer ${token}`,
    ...(scenario.body || scenario.bodyFor ? { 'content-type': 'application/json' } : {}),
  }));
  let next = Math.floor(Math.random() * tokens.length);
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let errors = 0;
  let bytes = 0;
  const statuses: Record<string, number> = {};
  const t0 = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${input.port}`,
        connections: input.connections,
        duration: input.seconds,
        timeout: 30,
        requests: [
          {
            method: scenario.method,
            path: scenario.path,
            body: scenario.body,
            setupRequest: (request) => {
              request.headers = headers[next];
              if (scenario.bodyFor) request.body = nextBody(scenario);
              next = (next + 1) % headers.length;
              return request;
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode !== 200) {
        errors++;
        return;
      }
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
      bytes += resBytes;
    });
  });
  const seconds = (performance.now() - t0) / 1000;
  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    requests: count,
    seconds,
    requestsPerSecond: count / seconds,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    p999: quantile(sorted, 0.999),
    mean: count ? sum / count : NaN,
    max: count ? sorted[count - 1] : NaN,
    errors: errors + result.errors + result.timeouts,
    statuses,
    bytesPerResponse: count ? bytes / count : 0,
  };
}
