/**
 * A loopback TCP proxy in front of a database, for tests of database trouble. `forward` passes
 * bytes both ways; `blackhole` makes the database unreachable the way a network partition does:
 * new connections are accepted and never answered, and open connections stop carrying data in
 * either direction (held, not refused: nothing tells the client the other side is gone).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'forward' | 'blackhole';

export interface TcpProxy {
  port: number;
  mode: ProxyMode;
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'forward';

  function connectUpstream(pair: Pair): void {
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    const end = () => {
      pair.client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    upstream.on('error', end).on('close', end);
    pair.client.on('error', end).on('close', end);
    // While the proxy is a black hole nothing is read, so nothing is passed on (TCP holds it).
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
    if (mode === 'blackhole') hold(pair);
  }

  function hold(pair: Pair): void {
    pair.client.unpipe();
    pair.upstream?.unpipe();
    pair.client.pause();
    pair.upstream?.pause();
  }

  function release(pair: Pair): void {
    if (!pair.upstream) {
      connectUpstream(pair);
      return;
    }
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
  }

  const server = net.createServer((client) => {
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => {
      client.destroy();
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (mode === 'forward') connectUpstream(pair);
    else client.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as AddressInfo).port,
    get mode() {
      return mode;
    },
    setMode(next: ProxyMode) {
      if (next === mode) return;
      mode = next;
      for (const pair of pairs) (next === 'blackhole' ? hold : release)(pair);
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
