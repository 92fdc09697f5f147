/**
 * A real HTTP receiver for webhook tests, on a loopback port: it records every request (headers
 * and raw body) and answers with the statuses it is told to, in order (then 200).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses to answer the next requests with, in order; afterwards 200. */
  answerNext(...statuses: number[]): void;
  /** Holds the next request unanswered until `release()` (a slow or killed delivery). */
  holdNext(): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const received: Received[] = [];
  const answers: number[] = [];
  let hold: { arrived: () => void; released: Promise<void> } | undefined;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const held = hold;
      hold = undefined;
      if (held) {
        held.arrived();
        await held.released;
      }
      const status = answers.shift() ?? 200;
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answerNext: (...statuses) => void answers.push(...statuses),
    holdNext() {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedPromise = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { arrived, released };
      return { arrived: arrivedPromise, release };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Waits until `condition()` holds, checking every 50 ms; fails after `deadlineMs` naming `what`. */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, deadlineMs = 15_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
