/**
 * Batch writes: every write endpoint takes up to 35 items and applies each on its own. An item
 * that cannot be applied fails alone with `error` and `error_code`; the others still proceed, and
 * the answer lists items in the order sent (200 when all succeeded, 202 when any failed).
 */
import type { Knex } from 'knex';

/** Why one item failed (the OpenAPI document's BatchErrorCode). */
export type ItemErrorCode = 'missing_field' | 'invalid_type' | 'validation' | 'not_found' | 'unauthorised' | 'forbidden_scope' | 'already_exists';

/** Thrown inside an item's handler: that item fails with this code and message, nothing of it is kept. */
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
export type FailedItem = Item & { error: string; error_code: ItemErrorCode };

export interface BatchResult<S> {
  success: S[];
  failed: FailedItem[];
}

/**
 * Applies `apply` to each item in order, each in its own transaction, so a failed item leaves
 * nothing behind and never rolls back another. Errors other than ItemError (the database going
 * away) abort the batch: they are not the item's fault and are answered as such.
 */
export async function runBatch<S>(db: Knex, items: Item[], apply: (trx: Knex.Transaction, item: Item, index: number) => Promise<S>): Promise<BatchResult<S>> {
  const result: BatchResult<S> = { success: [], failed: [] };
  for (const [index, item] of items.entries()) {
    try {
      result.success.push(await db.transaction((trx) => apply(trx, item, index)));
    } catch (error) {
      if (!(error instanceof ItemError)) throw error;
      result.failed.push({ ...item, error: error.message, error_code: error.code });
    }
  }
  return result;
}

/** Fails with `missing_field` naming the item's index and every missing field (the spec's message). */
export function requireFields(item: Item, index: number, fields: string[]): void {
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
