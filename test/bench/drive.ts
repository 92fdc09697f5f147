/**
 * One measurement: autocannon drives one scenario against one server for a while at a fixed
 * number of connections (closed loop: each connection sends its next request when the answer
 * arrives), each request carrying the next token of the list, so the load is spread over many
 * users. Latencies are kept exactly (autocannon's own histogram counts whole milliseconds, too
 * coarse for answers of one or two), from which the percentiles are taken.
 *
 * A round opens its connections anew, and a saturated server accepts them one per turn of its
 * event loop, so the answers of a round's first half second wait for the opening, not for the
 * request (docs/request-path.md, "The tail at 32 connections"). `opening` seconds at the start of
 * each round are therefore driven on the same connections but not measured: only the answers to
 * requests sent after it count, for the rate and the percentiles alike, and `onMeasuring` is called
 * when it ends (the CPU meters start there). Errors count from the first request.
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

export interface DriveInput {
  port: number;
  scenario: Scenario;
  tokens: string[];
  connections: number;
  /** Seconds measured. */
  seconds: number;
  /** Unmeasured seconds before them, on the same connections (default none). */
  opening?: number;
  /** Called when the measured seconds begin. */
  onMeasuring?: () => void;
}

export async function drive(input: DriveInput): Promise<DriveResult> {
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
  const opening = input.opening ?? 0;
  // Until the opening ends, measuredFrom is +Infinity and no answer counts.
  let measuredFrom = opening > 0 ? Infinity : performance.now();
  const startMeasuring = () => {
    measuredFrom = performance.now();
    input.onMeasuring?.();
  };
  if (opening === 0) input.onMeasuring?.();
  const openingTimer = opening > 0 ? setTimeout(startMeasuring, opening * 1000) : undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${input.port}`,
        connections: input.connections,
        duration: opening + input.seconds,
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
      // The request was sent responseTime ms ago: in the opening, it is not measured.
      if (performance.now() - responseTime < measuredFrom) return;
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
      bytes += resBytes;
    });
  });
  clearTimeout(openingTimer);
  const seconds = (performance.now() - measuredFrom) / 1000;
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
