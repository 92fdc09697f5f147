/**
 * Batch writes (docs/batch-writes.md): every write endpoint takes up to 35 items. An
 * item that cannot be applied fails alone with `error` and `error_code`; the others still proceed,
 * and the answer lists items in the order sent (200 when all succeeded, 202 when any failed).
 *
 * A batch is applied set-based, in one transaction, with a fixed number of statements whatever the
 * item count: first every check that needs no database runs over all items in memory, then one
 * locking read fetches every attribute the items name, the per-item rules run in memory over
 * those rows (in item order, so items touching the same thing see each other's effect as if
 * applied one after another), and a few multi-row statements write what succeeded. A failed item
 * is never written, so it changes nothing and never undoes another.
 */
import type { components } from '../../../../generated/types/v2';
import type { Knex } from 'knex';

/** Why one item failed (the OpenAPI document's BatchErrorCode). */
export type ItemErrorCode = components['schemas']['BatchErrorCode'];

/** Thrown by an item's rule: that item fails with this code and message, nothing of it is kept. */
export class ItemError extends Error {
  constructor(
    readonly code: ItemErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ItemError';
  }
}

export type Item = Record<string, unknown>;
export type FailedItem = components['schemas']['BatchFailure'];

export interface BatchResult<S> {
  success: S[];
  failed: FailedItem[];
}

/**
 * Each item's fate so far: pending (still going), failed (with its error) or succeeded (with what
 * the answer shows for it). Rules run on the pending items; the result keeps the order sent.
 */
export class Outcomes<S> {
  private readonly fates: Array<{ ok: true; value: S } | { ok: false; error: ItemError } | undefined>;

  constructor(readonly items: readonly Item[]) {
    this.fates = items.map(() => undefined);
  }

  private isPending(index: number): boolean {
    return this.fates[index] === undefined;
  }

  /**
   * Runs `rule` for one pending item: what it returns is kept for the next step; an ItemError it
   * throws fails the item (undefined is returned); any other error aborts the batch.
   */
  attempt<T>(index: number, rule: () => T): T | undefined {
    if (!this.isPending(index)) return undefined;
    try {
      return rule();
    } catch (error) {
      if (!(error instanceof ItemError)) throw error;
      this.fates[index] = { ok: false, error };
      return undefined;
    }
  }

  fail(index: number, error: ItemError): void {
    this.fates[index] = { ok: false, error };
  }

  succeed(index: number, value: S): void {
    this.fates[index] = { ok: true, value };
  }

  /** The answer: successes and failures, each in the order sent. Every item must have its fate. */
  result(): BatchResult<S> {
    const result: BatchResult<S> = { success: [], failed: [] };
    this.fates.forEach((fate, index) => {
      if (fate === undefined) throw new Error(`Batch item ${index} was left without an outcome.`);
      if (fate.ok) result.success.push(fate.value);
      else result.failed.push({ ...this.items[index], error: fate.error.message, error_code: fate.error.code });
    });
    return result;
  }
}

/** What the checks that need no database made of each item: its parsed form, or why it failed. */
export type Checked<T> = Array<T | ItemError>;

/** Runs `check` over every item; an ItemError it throws becomes that item's entry. */
export function checkEach<T>(items: readonly Item[], check: (item: Item, index: number) => T): Checked<T> {
  return items.map((item, index) => {
    try {
      return check(item, index);
    } catch (error) {
      if (error instanceof ItemError) return error;
      throw error;
    }
  });
}

/** The items that passed the checks, in order. */
export function passed<T>(checked: Checked<T>): T[] {
  return checked.filter((entry): entry is T => !(entry instanceof ItemError));
}

/** Fresh outcomes with the failures of the checks already recorded (each attempt of a transaction starts here). */
export function outcomesAfter<S>(items: readonly Item[], checked: Checked<unknown>): Outcomes<S> {
  const outcomes = new Outcomes<S>(items);
  checked.forEach((entry, index) => entry instanceof ItemError && outcomes.fail(index, entry));
  return outcomes;
}

/** PostgreSQL's code for a deadlock it broke by aborting one transaction. */
const DEADLOCK_DETECTED = '40P01';
/** Attempts of a batch's transaction before a deadlock is reported as the failure it is. */
const MAX_ATTEMPTS = 3;

let deadlockRetries = 0;

/**
 * Batch transactions this process ran again after a deadlock, since it started (exported as a
 * metric). Batches never deadlock one another; a rising count means a lock order went wrong.
 */
export function batchDeadlockRetries(): number {
  return deadlockRetries;
}

/**
 * Runs a batch's transaction. The write paths take their locks in a fixed order (attributes by id,
 * days by key, rows sorted), so writers never wait on each other in a cycle; a deadlock with some
 * other transaction (an account being deleted, say) rolls everything back, and the batch is simply
 * run again from the start: `work` must compute its outcome afresh on each attempt.
 */
export async function inBatchTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= MAX_ATTEMPTS) throw error;
      deadlockRetries++;
    }
  }
}

/** Fails with `missing_field` naming the item's index and every missing field (openapi/common/schemas/BatchErrorCode.yaml). */
export function requireFields(item: Item, index: number, fields: readonly string[]): void {
  if (fields.every((field) => field in item)) return; // the usual case, without building a list
  const missing = fields.filter((field) => !(field in item));
  if (missing.length > 0) {
    throw new ItemError('missing_field', `Item ${index} is missing required fields: ${missing.join(', ')}.`);
  }
}

/** PostgreSQL text cannot hold U+0000: such a string can be neither stored nor matched. */
export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/**
 * A field that must be a string when present. A NUL character fails the item (found by the fuzz
 * suite: it reached PostgreSQL, whose "invalid byte sequence" error was answered 500).
 */
export function stringField(item: Item, index: number, field: string): string {
  const value = item[field];
  if (typeof value !== 'string') throw new ItemError('invalid_type', `Item ${index}: ${field} must be a string.`);
  if (hasNul(value)) throw new ItemError('validation', `Item ${index}: ${field} must not contain the NUL character (U+0000).`);
  return value;
}

/** An optional JSON boolean field. */
export function optionalBooleanField(item: Item, index: number, field: string): boolean | undefined {
  const value = item[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new ItemError('invalid_type', `Item ${index}: ${field} must be true or false.`);
  return value;
}
