/**
 * Daybook's own JSON export (`/settings/account/export/data.json`, src/domain/identity/account.ts)
 * read back (docs/imports.md, "Daybook's JSON export"). The export is
 * `{"exported_at", "account", "attributes": [{name, label, template, group, value_type, priority,
 * manual, …, "values": [{date, value}, …]}, …], "averages", …}`; only the attributes and their
 * values are read (derived data is computed again from the values).
 *
 * Streamed, in two passes, never read whole: a person's export of many years can be hundreds of
 * megabytes. The first pass (at open) collects the attributes without their values (the columns
 * must be known before the preview); the second yields the values. A streaming JSON parser
 * (@streamparser/json) hands over one attribute at a time, so memory holds one attribute's values
 * (at most one per day of its history), whatever the file's size.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { JSONParser } from '@streamparser/json';
import { isSupportedDate } from '../time';
import { type FileColumn, type FileValue, ImportFault, type ImportReader, type OpenReader, type ProgressListener } from './types';

interface ExportedAttribute {
  name?: unknown;
  label?: unknown;
  template?: unknown;
  group?: unknown;
  value_type?: unknown;
  priority?: unknown;
  manual?: unknown;
  values?: unknown;
}

/** What one pass hands over: an attribute (whole, with its values) or the export's date stamp. */
type Found = { attribute: ExportedAttribute; index: number } | { exportedAt: unknown };

/** How often (in bytes) progress is reported. */
const PROGRESS_EVERY = 1 << 20;

/**
 * One pass over the file: the attributes one at a time, in file order. Throws ImportFault at the
 * place the JSON breaks (a truncated file, a broken token), after what came before it.
 */
async function* scan(path: string, onProgress?: (bytes: number) => void): AsyncGenerator<Found> {
  const found: Found[] = [];
  const parser = new JSONParser({ paths: ['$.exported_at', '$.attributes.*'], keepStack: false });
  parser.onValue = ({ value, key, stack }) => {
    if (stack.length === 1 && key === 'exported_at') found.push({ exportedAt: value });
    else if (stack.length === 2 && typeof key === 'number') found.push({ attribute: (value ?? {}) as ExportedAttribute, index: key });
  };
  let bytes = 0;
  let reported = 0;
  const broken = (error: unknown) => new ImportFault(`byte ${bytes.toLocaleString('en')}`, `The file is not valid JSON here: ${(error as Error).message}`);
  for await (const chunk of createReadStream(path)) {
    try {
      parser.write(chunk as Buffer);
    } catch (error) {
      yield* found.splice(0);
      throw broken(error);
    }
    bytes += (chunk as Buffer).length;
    yield* found.splice(0);
    if (onProgress && bytes - reported >= PROGRESS_EVERY) {
      reported = bytes;
      onProgress(bytes);
    }
  }
  if (bytes === 0) throw new ImportFault('the start of the file', 'The file is empty.');
  // The parser ends by itself when the top-level object closes; before that, the file was cut short.
  try {
    if (!parser.isEnded) parser.end();
  } catch (error) {
    throw new ImportFault('the end of the file', `The file ends before its JSON does (a truncated export?): ${(error as Error).message}`);
  }
  yield* found.splice(0);
  onProgress?.(bytes);
}

const where = (attribute: ExportedAttribute, index: number) => `attribute ${index + 1}${typeof attribute.name === 'string' ? ` (${attribute.name})` : ''}`;

/** An exported attribute as a column; ImportFault when it is not one. */
function columnOf(attribute: ExportedAttribute, index: number): FileColumn {
  const { name, label, template, group, value_type: valueType, priority, manual } = attribute;
  if (typeof name !== 'string' || name === '' || typeof label !== 'string' || typeof group !== 'string') {
    throw new ImportFault(where(attribute, index), 'An attribute needs a name, a label and a group.');
  }
  if (typeof valueType !== 'number' || !Number.isInteger(valueType) || valueType < 0 || valueType > 8) {
    throw new ImportFault(where(attribute, index), 'An attribute needs a value_type from 0 to 8.');
  }
  return {
    key: name,
    label,
    name,
    group,
    valueType,
    ...(typeof template === 'string' ? { template } : {}),
    ...(typeof priority === 'number' ? { priority } : {}),
    ...(typeof manual === 'boolean' ? { manual } : {}),
  };
}

/** The values of one attribute, checked for their shape (a date, a scalar value). */
function* valuesOf(attribute: ExportedAttribute, index: number): Generator<FileValue> {
  if (!Array.isArray(attribute.values)) throw new ImportFault(where(attribute, index), 'An attribute needs a list of values.');
  const key = attribute.name as string;
  for (const [position, entry] of (attribute.values as unknown[]).entries()) {
    const at = `${where(attribute, index)}, value ${position + 1}`;
    const { date, value } = (entry ?? {}) as { date?: unknown; value?: unknown };
    if (typeof date !== 'string' || !isSupportedDate(date)) throw new ImportFault(at, `${JSON.stringify(date)} is not a date YYYY-MM-DD.`);
    // A day without a value: nothing to import (exports never write one).
    if (value === null || value === undefined) continue;
    const scalar = typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean' ? value : JSON.stringify(value);
    yield { key, date, value: scalar, where: `${at} (${date})` };
  }
}

/**
 * Opens a Daybook JSON export: the first pass reads the columns (a file that is no Daybook export,
 * or breaks before its first attribute, is refused here). A fault later in the file is kept for
 * the second pass to throw at its place, after the values before it.
 */
export const openDaybookJson: OpenReader = async (path: string, onProgress?: ProgressListener): Promise<ImportReader> => {
  const totalBytes = (await stat(path)).size;
  const columns: FileColumn[] = [];
  let exported = false;
  try {
    for await (const found of scan(path)) {
      if ('exportedAt' in found) exported = typeof found.exportedAt === 'string';
      else columns.push(columnOf(found.attribute, found.index));
    }
  } catch (error) {
    // Refused at once when nothing of an export was seen; otherwise the second pass meets it in its place.
    if (!(error instanceof ImportFault) || columns.length === 0) throw error;
  }
  if (!exported) throw new ImportFault('the start of the file', 'This is JSON but not a Daybook export (it has no "exported_at" and "attributes").');
  let records = 0;
  return {
    format: 'daybook-json',
    columns,
    async *values() {
      for await (const found of scan(path, (bytes) => onProgress?.({ bytes, totalBytes, records }))) {
        if ('exportedAt' in found) continue;
        for (const value of valuesOf(found.attribute, found.index)) {
          records++;
          yield value;
        }
      }
    },
  };
};
