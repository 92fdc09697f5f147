/**
 * The embedded PostgreSQL serves the service through a login role of its own that is not a
 * superuser (docs/security.md, "The embedded PostgreSQL's role"): a hole in the service (an
 * injected statement, a stolen connection) then reaches Daybook's database and nothing else of the
 * cluster: no `COPY … TO PROGRAM`, no files, no other database, no roles. The role owns the database
 * and everything in it, so migrations and pg-boss create and alter their tables as today; the
 * migrations need no superuser (plpgsql is a trusted language, no extension is created).
 *
 * Run by the superuser on every start: creates the role (its password kept next to the cluster's,
 * like the superuser's), or brings its attributes and password back in line; creates the database
 * owned by it; and hands over a database made by an earlier version, where the superuser owned
 * everything. `REASSIGN OWNED BY postgres` is refused for the bootstrap superuser, so each object is
 * altered in turn; objects of extensions stay with them.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';

/** The role the service connects as. */
export const SERVICE_ROLE = 'daybook';

/** Reads the service role's password, or makes one (a file of the cluster's, mode 0600, beside the superuser's). */
export function servicePassword(clusterDir: string): string {
  const file = `${clusterDir}.service-password`;
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, password + '\n', { mode: 0o600 });
  return password;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Creates the role or resets it to what it must be: a login, nothing more. */
async function ensureRole(admin: pg.Client, password: string): Promise<void> {
  const found = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [SERVICE_ROLE]);
  if (found.rowCount === 0) await admin.query(`CREATE ROLE ${quoted(SERVICE_ROLE)}`);
  await admin.query(
    `ALTER ROLE ${quoted(SERVICE_ROLE)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${admin.escapeLiteral(password)}`,
  );
}

/** Objects of the database's own schemas (not the catalogues, not an extension's). */
const OWN_SCHEMA = `n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'`;
const notOfExtension = (catalog: string, oid: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

/**
 * Gives the role every object the superuser owns in the database (connected to it): schemas,
 * tables (with their indexes and owned sequences), views, other sequences, routines and types.
 */
const HAND_OVER = `
DO $$
DECLARE
  r record;
  target text := ${"'" + SERVICE_ROLE + "'"};
BEGIN
  FOR r IN SELECT n.nspname FROM pg_namespace n WHERE n.nspowner = 'postgres'::regrole AND ${OWN_SCHEMA} AND ${notOfExtension('pg_namespace', 'n.oid')} LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO %I', r.nspname, target);
  END LOOP;
  FOR r IN
    SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relowner = 'postgres'::regrole AND c.relkind IN ('r', 'p', 'f', 'v', 'm') AND ${OWN_SCHEMA} AND ${notOfExtension('pg_class', 'c.oid')}
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I',
      CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, r.name, target);
  END LOOP;
  -- Sequences a table owns followed it; these are the free-standing ones.
  FOR r IN
    SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relowner = 'postgres'::regrole AND c.relkind = 'S' AND ${OWN_SCHEMA} AND ${notOfExtension('pg_class', 'c.oid')}
  LOOP
    EXECUTE format('ALTER SEQUENCE %s OWNER TO %I', r.name, target);
  END LOOP;
  FOR r IN
    SELECT p.oid::regprocedure AS name, p.prokind FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE p.proowner = 'postgres'::regrole AND ${OWN_SCHEMA} AND ${notOfExtension('pg_proc', 'p.oid')}
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I', CASE r.prokind WHEN 'a' THEN 'AGGREGATE' ELSE 'ROUTINE' END, r.name, target);
  END LOOP;
  -- Types of their own (enums, domains, ranges, composites); a table's row type and array types follow their owner.
  FOR r IN
    SELECT t.oid::regtype AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE t.typowner = 'postgres'::regrole AND ${OWN_SCHEMA} AND ${notOfExtension('pg_type', 't.oid')}
       AND t.typtype IN ('e', 'd', 'r', 'c')
       AND (t.typrelid = 0 OR (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', r.name, target);
  END LOOP;
END
$$`;

/**
 * Makes `database` the service role's (creating the role and the database as needed) and answers
 * the role's connection URL. `adminUrl` is the superuser's URL of the maintenance database.
 */
export async function ensureServiceDatabase(adminUrl: string, database: string, password: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // Every start of an existing database hands over what the superuser still owns: an upgrade from
  // an earlier version, or one a crash interrupted (a few catalogue scans when nothing is left).
  let handOver = false;
  try {
    await ensureRole(admin, password);
    const found = await admin.query<{ owner: string }>('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${quoted(database)} OWNER ${quoted(SERVICE_ROLE)}`);
    } else {
      if (found.rows[0].owner !== SERVICE_ROLE) await admin.query(`ALTER DATABASE ${quoted(database)} OWNER TO ${quoted(SERVICE_ROLE)}`);
      handOver = true;
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  if (handOver) await withClient(url.toString(), (client) => client.query(HAND_OVER));
  url.username = SERVICE_ROLE;
  url.password = encodeURIComponent(password);
  return url.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
