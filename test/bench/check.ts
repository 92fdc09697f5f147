/**
 * Before measuring: the bench service acquires the attributes it writes, for every token's user
 * (through Daybook's own acquire endpoint), and every scenario is sent once to both servers with
 * the same token to make sure the baseline answers the same data (paging links compared without
 * their host and port, the profile's clock field left out, increments one apart), with the same
 * rate limit (X-RateLimit-Limit, every rate-limit header present, and the baseline's remaining count
 * one below Daybook's: the same shared count), and that both refuse an unknown and a revoked token
 * with 401.
 */
import { isDeepStrictEqual } from 'node:util';
import { WRITE_ATTRIBUTES } from './fixtures';
import { nextBody, type Scenario } from './scenarios';
import { createdName } from '../../src/domain/tracking/writes/create';
import { progressBar } from './progress';

async function call(port: number, token: string, method: string, path: string, body?: string): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  return { status: response.status, json: await response.json(), headers: response.headers };
}

/** The headers every API answer carries (the design's error table). */
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'];

/** Throws unless both answers carry every rate-limit header and the same limit. */
function checkRateLimitHeaders(what: string, daybook: Headers, baseline: Headers): void {
  for (const [server, headers] of [
    ['Daybook', daybook],
    ['the baseline', baseline],
  ] as const) {
    const missing = RATE_LIMIT_HEADERS.filter((name) => headers.get(name) === null);
    if (missing.length > 0) throw new Error(`${what}: ${server} sent no ${missing.join(', ')}.`);
  }
  const [d, b] = [daybook.get('X-RateLimit-Limit'), baseline.get('X-RateLimit-Limit')];
  if (d !== b) throw new Error(`${what}: X-RateLimit-Limit ${d} from Daybook, ${b} from the baseline.`);
}

/**
 * Both servers refuse `token` with 401 (and, when the baseline checks tokens, with the same detail
 * and rate-limit headers; the bare baseline only knows its map, so any other token is unknown to it).
 */
async function checkRefused(what: string, daybookPort: number, baselinePort: number, token: string, scenario: Scenario, rateLimit: boolean): Promise<void> {
  const daybook = await call(daybookPort, token, scenario.method, scenario.path, nextBody(scenario));
  const baseline = await call(baselinePort, token, scenario.method, scenario.path, nextBody(scenario));
  if (daybook.status !== 401 || baseline.status !== 401) {
    throw new Error(`${what}: Daybook answered ${daybook.status}, the baseline ${baseline.status} (both should answer 401).`);
  }
  if (!rateLimit) return;
  checkRateLimitHeaders(what, daybook.headers, baseline.headers);
  const [d, b] = [(daybook.json as { detail?: string }).detail, (baseline.json as { detail?: string }).detail];
  if (d !== b) throw new Error(`${what}: Daybook said "${d}", the baseline "${b}".`);
}

/** The baseline's request came right after Daybook's on the same connection's count: one more counted. */
function checkSharedCount(what: string, daybook: Headers, baseline: Headers): void {
  const [d, b] = [Number(daybook.get('X-RateLimit-Remaining')), Number(baseline.get('X-RateLimit-Remaining'))];
  if (b !== d - 1) throw new Error(`${what}: X-RateLimit-Remaining ${d} from Daybook then ${b} from the baseline (the same count should give ${d - 1}).`);
}

/** Makes the bench service the owner of WRITE_ATTRIBUTES for each token's user. */
export async function acquireWriteAttributes(port: number, tokens: string[]): Promise<void> {
  const bar = progressBar('acquire', tokens.length, 'users');
  for (const token of tokens) {
    const answer = await call(port, token, 'POST', '/api/2/attributes/acquire/', JSON.stringify(WRITE_ATTRIBUTES.map((name) => ({ name }))));
    if (answer.status !== 200) throw new Error(`Acquiring the write attributes failed (${answer.status}): ${JSON.stringify(answer.json)}`);
    bar.increment();
  }
  bar.stop();
}

/** Paging links without their origin; the profile without its clock. */
function comparable(json: unknown): unknown {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return json;
  const copy: Record<string, unknown> = { ...(json as Record<string, unknown>) };
  for (const link of ['next', 'previous']) {
    if (typeof copy[link] === 'string') copy[link] = (copy[link] as string).replace(/^http:\/\/[^/]+/, '');
  }
  delete copy.local_time;
  return copy;
}

/** The first place two JSON values differ, for the error message. */
function firstDifference(a: unknown, b: unknown, at = ''): string {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const inner = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}/${key}`);
      if (inner) return inner;
    }
    return '';
  }
  return isDeepStrictEqual(a, b) ? '' : `${at || '/'}: Daybook ${JSON.stringify(a)} vs baseline ${JSON.stringify(b)}`;
}

type Batch = { success: Array<Record<string, unknown>>; failed: unknown[] };

/**
 * Sends each scenario once to both servers with the same token; throws when the answers differ.
 * `rateLimit`: the baseline counts requests, so its rate-limit headers are compared too (the bare
 * baseline sends none).
 */
export async function checkSameAnswers(
  daybookPort: number,
  baselinePort: number,
  tokens: { live: string; revoked: string },
  scenarios: Scenario[],
  { rateLimit }: { rateLimit: boolean },
): Promise<void> {
  const token = tokens.live;
  if (scenarios.length > 0) {
    await checkRefused('An unknown token', daybookPort, baselinePort, 'not-a-token-of-this-bench', scenarios[0], rateLimit);
    await checkRefused('A revoked token', daybookPort, baselinePort, tokens.revoked, scenarios[0], rateLimit);
  }
  for (const scenario of scenarios) {
    const daybook = await call(daybookPort, token, scenario.method, scenario.path, nextBody(scenario));
    const baseline = await call(baselinePort, token, scenario.method, scenario.path, nextBody(scenario));
    if (daybook.status !== 200 || baseline.status !== 200) {
      throw new Error(
        `${scenario.name}: Daybook answered ${daybook.status}, the baseline ${baseline.status}: ${JSON.stringify(daybook.json).slice(0, 500)} / ${JSON.stringify(baseline.json).slice(0, 500)}`,
      );
    }
    if (rateLimit) {
      checkRateLimitHeaders(scenario.name, daybook.headers, baseline.headers);
      checkSharedCount(scenario.name, daybook.headers, baseline.headers);
    }
    let d = comparable(daybook.json);
    let b = comparable(baseline.json);
    if (scenario.name === 'increment') {
      // The baseline's increment came second: each total is one more.
      const db = d as Batch;
      const bb = b as Batch;
      bb.success.forEach((item, i) => {
        if (item.current !== (db.success[i]?.current as number) + 1)
          throw new Error(`increment item ${i}: Daybook total ${db.success[i]?.current}, baseline ${item.current}`);
      });
      d = { ...db, success: db.success.map(({ current: _c, ...rest }) => rest) };
      b = { ...bb, success: bb.success.map(({ current: _c, ...rest }) => rest) };
    }
    if (scenario.bodyFor) {
      // Each request creates attributes of its own labels: compare without them, after checking each name.
      const withoutLabels = (batch: Batch) => ({
        ...batch,
        success: batch.success.map(({ label, name, ...rest }) => {
          if (name !== createdName(String(label))) throw new Error(`${scenario.name}: the label ${String(label)} was given the name ${String(name)}`);
          return rest;
        }),
      });
      d = withoutLabels(d as Batch);
      b = withoutLabels(b as Batch);
    }
    const difference = firstDifference(d, b);
    if (difference) throw new Error(`The baseline does not answer ${scenario.name} as Daybook does: ${difference}`);
    const results = (daybook.json as { results?: unknown[]; success?: unknown[] }).results ?? (daybook.json as { success?: unknown[] }).success;
    if (Array.isArray(results) && results.length === 0) throw new Error(`${scenario.name}: the answer is an empty list; the dataset is missing data for it.`);
  }
}
