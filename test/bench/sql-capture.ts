/**
 * Daybook's own statements, as it sends them, for `sql-compare` (issue 35 item 3): the real app,
 * in this process, on the bench's dataset, is asked each bench request three times with a bench
 * token (the first records the token's use, the second remembers the credential, the third is the
 * steady request: the recheck and the count carried by its first statement), and every statement
 * of the third is taken from knex's 'query' event (db/sql.ts emits it for `rows` too when someone
 * listens). So what is compared is exactly what the bench measures, not a copy that could drift.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import pino from 'pino';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { poolDatabase } from '../../src/db/database';
import { createKnex } from '../../src/db/knex';
import { allScenarios, nextBody } from './scenarios';
import { daybookEnv } from './services';

/** One statement as sent: its `$n` text and its values. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** A bench request's statements: the steady request's (`steady`), the one before (`looked`: the credential read in full) and the status. */
export interface Captured {
  scenario: string;
  status: number;
  steady: Statement[];
  looked: Statement[];
}

/** knex's 'query' event: the text with `$n` (rows) or `?` placeholders (knex's own queries). */
interface QueryEvent {
  sql: string;
  bindings?: unknown[];
}

function statementOf(db: Knex, event: QueryEvent): Statement {
  const positional = /\$\d/.test(event.sql) ? event.sql : (db.client as { positionBindings(sql: string): string }).positionBindings(event.sql);
  return { text: positional, values: event.bindings ?? [] };
}

/** Serves the bench's requests with the real app on `url` and takes the steady request's statements of each. */
export async function captureStatements(url: string, token: string, today: string, names: readonly string[]): Promise<Captured[]> {
  const env = { ...daybookEnv(url, 4), LOG_LEVEL: 'silent', SECRET_KEY: crypto.randomBytes(36).toString('base64url') };
  const config = loadConfig(env);
  const db = createKnex(url, { pool: { min: 0, max: 4 } });
  const deps = { config, db, database: poolDatabase(db), logger: pino({ level: 'silent' }), secretKey: env.SECRET_KEY, now: () => new Date() };
  const { app } = await createApp(deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let taking: Statement[] | undefined;
  db.on('query', (event: QueryEvent) => taking?.push(statementOf(db, event)));
  try {
    const captured: Captured[] = [];
    for (const scenario of allScenarios(today).filter((s) => names.includes(s.name))) {
      let status = 0;
      const looked: Statement[] = [];
      for (let round = 0; round < 3; round++) {
        const steady: Statement[] = [];
        taking = round === 2 ? steady : round === 1 ? looked : undefined;
        const body = nextBody(scenario);
        const headers: Record<string, string> = { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) };
        const answer = await fetch(base + scenario.path, { method: scenario.method, headers, body });
        await answer.arrayBuffer();
        status = answer.status;
        taking = undefined;
        if (round === 2) captured.push({ scenario: scenario.name, status, steady, looked });
      }
    }
    return captured;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await db.destroy();
  }
}
