/**
 * Webhooks (docs/webhooks.md).
 *
 * `webhook_endpoints`: an app's subscriptions: a URL and the event types it receives. The signing
 * secret is kept as written (`whsec_…`): signing needs it, so it cannot be a hash like the other
 * credentials; a rotated-out secret keeps signing beside the new one until `previous_secret_until`.
 * `failing_since` is the start of the current run of failed deliveries; 24 h of it disables the
 * endpoint (`disabled_at`, `disabled_reason` shown to the app's owner).
 *
 * The outbox, written in the same transaction as the change it records, drained by the workers:
 * - `webhook_value_changes`: (person, day) and the attributes whose value was written that day,
 *   filled by statement triggers on `attribute_values` (so every write path records, and the
 *   one-statement write path gains no round trip). A row keeps the time of its first change: the
 *   dispatcher sends the person's changes once the oldest is older than the coalescing window.
 * - `webhook_events`: other events (grant.revoked, attribute.ownership_changed, derived.updated).
 *
 * `webhook_deliveries`: one message to one endpoint: its `webhook-id`, its body (signed again on
 * each attempt with the current secrets), and what the last attempt got.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table webhook_endpoints (
      id bigserial primary key,
      public_id text not null unique,
      client_pk bigint not null references oauth_clients (id) on delete cascade,
      url text not null,
      events text[] not null,
      secret text not null,
      previous_secret text,
      previous_secret_until timestamptz,
      failing_since timestamptz,
      disabled_at timestamptz,
      disabled_reason text,
      created_at timestamptz not null default now()
    );
    create index webhook_endpoints_client_idx on webhook_endpoints (client_pk);

    -- One row per person and day, with the attributes written that day: a batch writing many
    -- attributes of a day adds one row. No foreign key: its check made each write's outbox rows
    -- cost half as much again (test/bench/webhook-write-cost.ts); a deleted person's rows are
    -- dropped by the dispatcher.
    create table webhook_value_changes (
      user_id bigint not null,
      date date not null,
      attribute_ids bigint[] not null,
      changed_at timestamptz not null default now(),
      primary key (user_id, date)
    );

    create table webhook_events (
      id bigserial primary key,
      user_id bigint not null references users (id) on delete cascade,
      -- Set for an event about one app only (grant.revoked).
      client_pk bigint references oauth_clients (id) on delete cascade,
      type text not null,
      data jsonb not null,
      created_at timestamptz not null default now()
    );

    create table webhook_deliveries (
      id bigserial primary key,
      message_id text not null unique,
      endpoint_id bigint not null references webhook_endpoints (id) on delete cascade,
      event_type text not null,
      body text not null,
      created_at timestamptz not null default now(),
      status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
      attempts integer not null default 0,
      last_attempt_at timestamptz,
      last_status integer,
      last_error text,
      last_latency_ms integer,
      -- Set by a re-send (from the app page or the API); the dispatcher queues the delivery again.
      resend_requested_at timestamptz
    );
    create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc);

    -- Records written values for webhooks, only while some endpoint is enabled (else the table
    -- would fill with changes nobody will hear about). Rows in key order, as the writes lock theirs.
    create function webhook_record_value_changes() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from webhook_endpoints where disabled_at is null) then
        insert into webhook_value_changes as c (user_id, date, attribute_ids)
        select n.user_id, n.date, array_agg(distinct n.attribute_id order by n.attribute_id) from written n group by 1, 2 order by 1, 2
        on conflict (user_id, date) do update
          set attribute_ids = array(select distinct a from unnest(c.attribute_ids || excluded.attribute_ids) as a order by a)
          where not (excluded.attribute_ids <@ c.attribute_ids);
      end if;
      return null;
    end $$;
    create trigger attribute_values_webhook_insert after insert on attribute_values
      referencing new table as written for each statement execute function webhook_record_value_changes();
    create trigger attribute_values_webhook_update after update on attribute_values
      referencing new table as written for each statement execute function webhook_record_value_changes();

    -- Ownership changes of attributes (owner service or active flag), whatever made them.
    create function webhook_record_ownership_changes() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from webhook_endpoints where disabled_at is null) then
        insert into webhook_events (user_id, type, data)
        select n.user_id, 'attribute.ownership_changed',
               jsonb_build_object('attribute_id', n.id, 'previous_owner_pk', o.owner_client_pk, 'owner_pk', n.owner_client_pk,
                                  'was_active', o.active, 'active', n.active)
          from new_rows n join old_rows o on o.id = n.id
         where n.owner_client_pk is distinct from o.owner_client_pk or n.active is distinct from o.active;
      end if;
      return null;
    end $$;
    create trigger attributes_webhook_ownership after update on attributes
      referencing old table as old_rows new table as new_rows for each statement execute function webhook_record_ownership_changes();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger attributes_webhook_ownership on attributes;
    drop function webhook_record_ownership_changes();
    drop trigger attribute_values_webhook_update on attribute_values;
    drop trigger attribute_values_webhook_insert on attribute_values;
    drop function webhook_record_value_changes();
    drop table webhook_deliveries;
    drop table webhook_events;
    drop table webhook_value_changes;
    drop table webhook_endpoints;
  `);
}
