/** What the app's parts need from the process: settings, the database, the log and the clock. */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from './config';

export interface Deps {
  config: Config;
  db: Knex;
  logger: Logger;
  /** Server secret for derived credentials (simple tokens). */
  secretKey: string;
  /** The clock; tests replace it to check expiries. */
  now: () => Date;
}
