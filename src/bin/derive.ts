/**
 * `npm run -s derive -- [--user NAME]... [--all]`: computes derived data now (the weekly averages
 * and correlations of the current week, and insights) for the people named, or everyone with data,
 * without waiting for the jobs. Uses DATABASE_URL like the service (or the embedded PostgreSQL,
 * also while the service runs). Shows a progress bar over people on stderr; prints a summary
 * (users, attributes, pairs, time) on stderr and as one JSON object on stdout. Bad arguments exit 2.
 */
import { loadConfig } from '../config';
import { openDatabase } from '../database';
import { findUserByUsername } from '../domain/identity/users';
import { deriveMany } from '../analytics/run-many';

const USAGE = 'Usage: npm run -s derive -- --user NAME [--user NAME2 ...] | --all';

class UsageError extends Error {}

function parse(args: string[]): { users: string[]; all: boolean } {
  const users: string[] = [];
  let all = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--all') all = true;
    else if (args[i] === '--user' && args[i + 1] !== undefined && !args[i + 1].startsWith('--')) users.push(args[++i]);
    else throw new UsageError(`Unexpected argument "${args[i]}". ${USAGE}`);
  }
  if (!all && users.length === 0) throw new UsageError(USAGE);
  if (all && users.length > 0) throw new UsageError(`Give --user or --all, not both. ${USAGE}`);
  return { users, all };
}

async function main(argv: string[]): Promise<number> {
  let wanted: { users: string[]; all: boolean };
  try {
    wanted = parse(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase(config, { reuseRunning: true });
  try {
    let people: Array<{ id: number; username: string }>;
    if (wanted.all) {
      people = await database
        .db('users as u')
        .whereExists((q) => q.select(database.db.raw('1')).from('attribute_values as v').whereRaw('v.user_id = u.id'))
        .orderBy('u.id')
        .select('u.id', 'u.username');
    } else {
      people = [];
      for (const name of wanted.users) {
        const user = await findUserByUsername(database.db, name);
        if (!user) {
          process.stderr.write(`No user named ${name}.\n`);
          return 2;
        }
        people.push({ id: user.id, username: user.username });
      }
    }
    const { totals } = await deriveMany(database.db, people, { now: () => new Date() });
    process.stderr.write(
      `Derived ${totals.users} user(s): ${totals.attributes} attributes, ${totals.pairs} pairs (${totals.tests} tests, ` +
        `${totals.published} correlations published), ${totals.averages} averages, ${totals.insights} new insights ` +
        `in ${totals.seconds.toFixed(2)} s (${totals.usersPerMinute.toFixed(0)} users/minute).\n`,
    );
    process.stdout.write(`${JSON.stringify(totals)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`derive failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
