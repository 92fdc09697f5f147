/**
 * Initial schema: catalogue, people and credentials, attributes and values, derived data.
 *
 * Raw SQL because composite foreign keys, CHECKs, arrays and expression indexes read more plainly
 * than their schema-builder spelling. Every table holding one user's data starts with `user_id`
 * and leads its primary key and main indexes with it, and per-user child tables reference
 * attributes through `(user_id, attribute_id)`, so the tables can later be distributed by user
 * (Citus needs the distribution column in unique constraints and co-located foreign keys).
 */
import type { Knex } from 'knex';

const UP = `
create table groups (
  name text primary key,
  label text not null,
  priority integer not null
);

create table templates (
  name text primary key,
  label text not null,
  group_name text not null references groups (name) on update cascade,
  value_type smallint not null check (value_type between 0 and 8),
  priority integer not null,
  unit text
);

create table users (
  id bigserial primary key,
  username text not null,
  password_hash text,
  first_name text not null default '',
  last_name text not null default '',
  avatar text not null default '',
  bio text not null default '',
  url text not null default '',
  timezone text not null default 'UTC',
  private boolean not null default false,
  imperial_distance boolean not null default false,
  imperial_weight boolean not null default false,
  imperial_energy boolean not null default false,
  imperial_liquid boolean not null default false,
  imperial_temperature boolean not null default false,
  trial boolean not null default false,
  delinquent boolean not null default false,
  simple_token_version integer not null default 1,
  simple_token_hash text unique,
  created_at timestamptz not null default now()
);
-- User names are unique whatever their case, and looked up case-insensitively.
create unique index users_username_lower_key on users (lower(username));

-- Each row is a client; one that writes data is a service. client_id is the service name on the
-- wire, name its label. Built-in services (manual tracking, demo data) have no secret.
create table oauth_clients (
  id bigserial primary key,
  client_id text not null unique,
  name text not null,
  description text not null default '',
  website text not null default '',
  owner_user_id bigint references users (id) on delete cascade,
  secret_hash text,
  confidential boolean not null default true,
  redirect_uris text[] not null default '{}',
  allowed_scopes text[] not null default '{}',
  builtin boolean not null default false,
  created_at timestamptz not null default now()
);
create index oauth_clients_owner_idx on oauth_clients (owner_user_id);

-- Codes are found by their hash alone at the token endpoint, hence the global unique key.
create table authorisation_codes (
  user_id bigint not null references users (id) on delete cascade,
  code_hash text not null unique,
  client_pk bigint not null references oauth_clients (id) on delete cascade,
  redirect_uri text not null,
  scopes text[] not null default '{}',
  code_challenge text,
  code_challenge_method text,
  grant_id text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index authorisation_codes_user_idx on authorisation_codes (user_id, client_pk);
create index authorisation_codes_expires_idx on authorisation_codes (expires_at);

-- One row per issued access token (with its refresh token). A refresh sets replaced_at on the old
-- row and inserts a new one with the same grant_id, so a whole grant can be revoked at once.
create table tokens (
  user_id bigint not null references users (id) on delete cascade,
  id bigserial not null unique,
  client_pk bigint not null references oauth_clients (id) on delete cascade,
  grant_id text not null,
  access_hash text not null unique,
  refresh_hash text unique,
  scopes text[] not null default '{}',
  access_expires_at timestamptz not null,
  refresh_expires_at timestamptz,
  revoked_at timestamptz,
  replaced_at timestamptz,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  primary key (user_id, id)
);
create index tokens_user_client_idx on tokens (user_id, client_pk);
create index tokens_grant_idx on tokens (grant_id);
create index tokens_client_idx on tokens (client_pk);

create table sessions (
  user_id bigint not null references users (id) on delete cascade,
  id_hash text not null unique,
  csrf_secret text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  last_seen_at timestamptz not null default now()
);
create index sessions_user_idx on sessions (user_id);
create index sessions_expires_idx on sessions (expires_at);

create table attributes (
  user_id bigint not null references users (id) on delete cascade,
  id bigserial not null unique,
  name text not null,
  label text not null,
  template_name text references templates (name) on update cascade,
  group_name text not null references groups (name) on update cascade,
  value_type smallint not null check (value_type between 0 and 8),
  priority integer not null,
  manual boolean not null default false,
  active boolean not null default true,
  private boolean not null default false,
  owner_client_pk bigint references oauth_clients (id) on delete set null,
  created_at timestamptz not null default now(),
  primary key (user_id, id),
  unique (user_id, name)
);
-- The order every attribute list is shown in.
create index attributes_user_group_idx on attributes (user_id, group_name, priority, name);
create index attributes_owner_idx on attributes (owner_client_pk);

-- Which services can handle which attribute (docs/decisions.md: a client that acquired it before).
create table attribute_services (
  user_id bigint not null,
  attribute_id bigint not null,
  client_pk bigint not null references oauth_clients (id) on delete cascade,
  acquired_at timestamptz not null default now(),
  primary key (user_id, attribute_id, client_pk),
  foreign key (user_id, attribute_id) references attributes (user_id, id) on delete cascade
);
create index attribute_services_client_idx on attribute_services (client_pk);

-- One value per attribute per day: numbers in value_num (booleans as 0/1), strings in value_text.
-- A value is never set back to null (the v2 document, "Dates, units and values"), so a row always holds one of them.
create table attribute_values (
  user_id bigint not null,
  attribute_id bigint not null,
  date date not null,
  value_num double precision,
  value_text text,
  updated_at timestamptz not null default now(),
  primary key (user_id, attribute_id, date),
  foreign key (user_id, attribute_id) references attributes (user_id, id) on delete cascade,
  constraint attribute_values_value_present check (value_num is not null or value_text is not null)
);
-- A day across attributes (v1 today, the day's custom tags).
create index attribute_values_user_date_idx on attribute_values (user_id, date);

-- Dates whose values changed since derived data was last computed; derived-data jobs drain it.
create table value_changes (
  user_id bigint not null references users (id) on delete cascade,
  date date not null,
  changed_at timestamptz not null default now(),
  primary key (user_id, date)
);

-- Weekly sets of medians ("averages" to users), historical sets kept.
create table averages (
  user_id bigint not null,
  attribute_id bigint not null,
  date date not null,
  overall double precision not null,
  monday double precision,
  tuesday double precision,
  wednesday double precision,
  thursday double precision,
  friday double precision,
  saturday double precision,
  sunday double precision,
  computed_at timestamptz not null default now(),
  primary key (user_id, attribute_id, date),
  foreign key (user_id, attribute_id) references attributes (user_id, id) on delete cascade
);
create index averages_user_date_idx on averages (user_id, date);

create table correlations (
  user_id bigint not null references users (id) on delete cascade,
  date date not null,
  attribute_id bigint not null,
  attribute2_id bigint not null,
  "offset" smallint not null default 0,
  period integer not null,
  value double precision not null,
  p double precision not null,
  q double precision not null,
  percentage double precision not null,
  stars smallint not null,
  strength_description text not null,
  stars_description text not null,
  second_person text not null,
  second_person_elements text[] not null default '{}',
  computed_at timestamptz not null default now(),
  primary key (user_id, date, attribute_id, attribute2_id, "offset"),
  foreign key (user_id, attribute_id) references attributes (user_id, id) on delete cascade,
  foreign key (user_id, attribute2_id) references attributes (user_id, id) on delete cascade
);
create index correlations_user_attribute_idx on correlations (user_id, attribute_id, date);
create index correlations_user_attribute2_idx on correlations (user_id, attribute2_id, date);

-- dedupe_key lets a job re-run without repeating an insight it already made.
create table insights (
  user_id bigint not null references users (id) on delete cascade,
  id bigserial not null unique,
  type_name text not null,
  period integer not null,
  priority smallint not null,
  attribute_id bigint,
  target_date date,
  created timestamptz not null default now(),
  html text not null,
  text text not null,
  value text,
  value2 text,
  comment text,
  dedupe_key text not null,
  primary key (user_id, id),
  unique (user_id, dedupe_key),
  foreign key (user_id, attribute_id) references attributes (user_id, id) on delete cascade
);
create index insights_user_created_idx on insights (user_id, created desc);
`;

/** Children before parents, so no drop needs CASCADE. */
const TABLES_IN_DROP_ORDER = [
  'insights',
  'correlations',
  'averages',
  'value_changes',
  'attribute_values',
  'attribute_services',
  'attributes',
  'sessions',
  'tokens',
  'authorisation_codes',
  'oauth_clients',
  'users',
  'templates',
  'groups',
];

/** Creates every table of the initial schema. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(UP);
}

/** Drops every table `up` created. */
export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES_IN_DROP_ORDER) {
    await knex.schema.dropTableIfExists(table);
  }
}
