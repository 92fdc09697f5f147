/** People: accounts, their profile fields and their simple token. */
import type { Knex } from 'knex';
import { PREPARED } from '../../db/knex';
import { COUNT_COLUMNS, countedCte, countOf, quotaKeyOf, type QuotaCount, type QuotaWindow } from '../apps-and-grants/quota';
import { knexRaw, raw, rows, sql } from '../../db/sql';
import { invalidInput } from '../errors';
import { hashCredential, hashPassword, simpleTokenFor, verifyPassword } from './credentials';
import { isValidTimeZone } from '../time';

export interface User {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  avatar: string;
  bio: string;
  url: string;
  timezone: string;
  private: boolean;
  imperial_distance: boolean;
  imperial_weight: boolean;
  imperial_energy: boolean;
  imperial_liquid: boolean;
  imperial_temperature: boolean;
  trial: boolean;
  delinquent: boolean;
  simple_token_version: number;
}

const USER_COLUMNS = [
  'id',
  'username',
  'first_name',
  'last_name',
  'avatar',
  'bio',
  'url',
  'timezone',
  'private',
  'imperial_distance',
  'imperial_weight',
  'imperial_energy',
  'imperial_liquid',
  'imperial_temperature',
  'trial',
  'delinquent',
  'simple_token_version',
] as const;

/**
 * The fields of one's own profile (`GET /api/2/accounts/profile/`). The credentials' lookup reads
 * them in the same statement (`Principal.profile`), so reading one's profile costs no query of its
 * own (docs/request-path.md).
 */
export const PROFILE_COLUMNS = [
  'username',
  'first_name',
  'last_name',
  'avatar',
  'timezone',
  'imperial_distance',
  'imperial_weight',
  'imperial_energy',
  'imperial_liquid',
  'imperial_temperature',
  'trial',
  'delinquent',
] as const;

export type AccountProfile = Pick<User, (typeof PROFILE_COLUMNS)[number]>;

/** The profile fields of a row that holds them (and others). */
export function profileOf(row: AccountProfile): AccountProfile {
  return Object.fromEntries(PROFILE_COLUMNS.map((column) => [column, row[column]])) as unknown as AccountProfile;
}

/** Usernames: 1-150 letters, digits and @ . + - _ (they appear in version 1 paths). */
const USERNAME = /^[A-Za-z0-9@.+_-]{1,150}$/;

export function validateUsername(username: string): void {
  if (!USERNAME.test(username) || username === '$self') {
    throw invalidInput('A username is 1 to 150 letters, digits and the characters @ . + - _.');
  }
}

export function validatePassword(password: string): void {
  if (password.length < 8 || password.length > 1024) {
    throw invalidInput('A password is 8 to 1024 characters long.');
  }
}

/** Creates an account; the username is unique whatever its letter case. */
export async function createUser(
  db: Knex,
  input: { username: string; password: string; timezone?: string },
  secretKey: string,
): Promise<{ user: User; simpleToken: string }> {
  validateUsername(input.username);
  validatePassword(input.password);
  checkTimeZone(input.timezone);
  return createUserWithHash(db, { ...input, passwordHash: await hashPassword(input.password) }, secretKey);
}

function checkTimeZone(timezone: string | undefined): void {
  if (timezone !== undefined && !isValidTimeZone(timezone)) throw invalidInput(`Unknown timezone "${timezone}": use an IANA name such as Europe/London.`);
}

/**
 * Creates an account whose password was hashed already (`hashPassword`): what createUser does
 * after hashing. The tests' people share one hash of one password, so that each does not cost a
 * scrypt (test/support/fixtures.ts).
 */
export async function createUserWithHash(
  db: Knex,
  input: { username: string; passwordHash: string; timezone?: string },
  secretKey: string,
): Promise<{ user: User; simpleToken: string }> {
  validateUsername(input.username);
  checkTimeZone(input.timezone);
  const inserted = await db('users')
    .insert({ username: input.username, password_hash: input.passwordHash, timezone: input.timezone ?? 'UTC' })
    .onConflict(db.raw('(lower(username))'))
    .ignore()
    .returning(USER_COLUMNS as unknown as string[]);
  if (inserted.length === 0) throw invalidInput(`The username ${input.username} is taken.`);
  const user = inserted[0] as User;
  const simpleToken = await storeSimpleToken(db, user, secretKey);
  return { user, simpleToken };
}

/** Records the hash of the user's current simple token and returns the token. */
async function storeSimpleToken(db: Knex, user: Pick<User, 'id' | 'simple_token_version'>, secretKey: string): Promise<string> {
  const token = simpleTokenFor(user.id, user.simple_token_version, secretKey);
  await db('users')
    .where({ id: user.id })
    .update({ simple_token_hash: hashCredential(token) });
  return token;
}

/** The person's simple token: the same each time until it is reset. */
export async function simpleTokenOf(db: Knex, user: Pick<User, 'id' | 'simple_token_version'>, secretKey: string): Promise<string> {
  return storeSimpleToken(db, user, secretKey);
}

/** Replaces the person's simple token; the old one stops working at once. */
export async function resetSimpleToken(db: Knex, userId: number, secretKey: string): Promise<string> {
  const [user] = await db('users').where({ id: userId }).increment('simple_token_version', 1).returning(['id', 'simple_token_version']);
  return storeSimpleToken(db, user, secretKey);
}

export async function findUserById(db: Knex, id: number): Promise<User | undefined> {
  return db('users').select(USER_COLUMNS).where({ id }).options(PREPARED).first();
}

export async function findUserByUsername(db: Knex, username: string): Promise<(User & { password_hash: string | null }) | undefined> {
  // No stored name holds U+0000 (PostgreSQL text cannot), and sending one makes the query fail.
  if (username.includes('\u0000')) return undefined;
  return db('users')
    .select([...USER_COLUMNS, 'password_hash'])
    .whereRaw(...knexRaw(sql`lower(username) = lower(${username})`))
    .first();
}

/** The account of a simple token's hash, with the version of its row. */
const simpleTokenAccount = (hash: string) =>
  sql`select ${raw(USER_COLUMNS.join(', '))}, xmin::text as user_version from users where simple_token_hash = ${hash} limit 1`;

type SimpleTokenRow = User & { user_version: string; quota_points?: number | null; quota_expire?: number | null };

/**
 * The account of a simple token (by its hash), the version of its row (`xmin`, for recent-credentials.ts) and,
 * when `quota` is given, the request counted against the person's rate limit (quota.ts), all in one
 * statement: one round trip before the request's data.
 */
export async function findUserBySimpleTokenAndCount(
  db: Knex,
  hash: string,
  quota?: QuotaWindow,
): Promise<{ user?: User; userVersion?: string; count?: QuotaCount }> {
  const [row] = await rows<SimpleTokenRow>(
    db,
    quota
      ? sql`with u as (${simpleTokenAccount(hash)}), ${countedCte(raw('u'), quotaKeyOf(raw('u.id')), sql`true`, quota)}
  select u.*, ${COUNT_COLUMNS} from u left join counted on true`
      : simpleTokenAccount(hash),
  );
  if (!row) return {};
  const { quota_points: _points, quota_expire: _expire, user_version: userVersion, ...user } = row;
  return { user, userVersion, count: countOf(row) };
}

/**
 * The account these credentials open, or undefined. Wrong user name and wrong password look the
 * same from outside, in answer and in time (an unknown user still costs one scrypt).
 */
export async function authenticateUser(db: Knex, username: string, password: string): Promise<User | undefined> {
  const found = username.length <= 150 ? await findUserByUsername(db, username) : undefined;
  const ok = await verifyPassword(password, found?.password_hash ?? null);
  if (!found || !ok) return undefined;
  const { password_hash: _hash, ...user } = found;
  return user;
}

/** The fields a person sets on the profile settings page. */
export interface ProfileSettings {
  first_name: string;
  last_name: string;
  avatar: string;
  timezone: string;
  bio: string;
  url: string;
  private: boolean;
  imperial_distance: boolean;
  imperial_weight: boolean;
  imperial_energy: boolean;
  imperial_liquid: boolean;
  imperial_temperature: boolean;
}

/** An absolute http(s) URL of at most 1000 characters, or empty. */
function webAddressProblem(field: string, value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 1000) return `The ${field} is at most 1000 characters.`;
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return undefined;
  } catch {
    // falls through
  }
  return `The ${field} must be a web address starting with https:// (or http://).`;
}

/** Checks profile settings; returns the problems a person can fix (empty when they are fine). */
export function profileProblems(input: ProfileSettings): string[] {
  const problems: string[] = [];
  if (input.first_name.length > 150) problems.push('The first name is at most 150 characters.');
  if (input.last_name.length > 150) problems.push('The last name is at most 150 characters.');
  if (input.bio.length > 1000) problems.push('The bio is at most 1000 characters.');
  for (const [field, value] of [
    ['avatar URL', input.avatar],
    ['website', input.url],
  ] as const) {
    const problem = webAddressProblem(field, value);
    if (problem) problems.push(problem);
  }
  if (!isValidTimeZone(input.timezone)) problems.push(`Unknown timezone "${input.timezone}": choose one from the list.`);
  return problems;
}

/** Saves a person's profile settings (checked with `profileProblems` first; throws 400 otherwise). */
export async function updateProfile(db: Knex, userId: number, input: ProfileSettings): Promise<User> {
  const problems = profileProblems(input);
  if (problems.length > 0) throw invalidInput(problems.join(' '));
  const [user] = await db('users')
    .where({ id: userId })
    .update(input)
    .returning(USER_COLUMNS as unknown as string[]);
  return user as User;
}
