/**
 * What a CSV file's header says it is (docs/imports-csv.md, "Forms"). Header names are trimmed and
 * compared case-insensitively.
 *
 * - `date` (or `day`), `attribute` and `value`: the long form, a row per attribute per day. With
 *   `label` and `group` as well it is Daybook's own values export (`daybook-csv`); any other
 *   column is a fault (a long-form file has nowhere to put it).
 * - `date` (or `day`) and other columns: the wide form, a row per day and a column per attribute
 *   (its name or label); every other column must have a header, and no two the same one.
 */
import type { ImportFormat } from '../types';
import { ImportFault } from '../types';
import { rowWhere } from './where';

const DATE_NAMES = new Set(['date', 'day']);
const LONG_NAMES = ['attribute', 'value', 'label', 'group'] as const;

export interface LongLayout {
  format: 'daybook-csv' | 'csv-long';
  cellCount: number;
  date: number;
  attribute: number;
  value: number;
  label?: number;
  group?: number;
}

export interface WideLayout {
  format: 'csv-wide';
  cellCount: number;
  date: number;
  /** The attribute columns: their index and header text (the column's key). */
  columns: Array<{ index: number; key: string }>;
}

export type Layout = LongLayout | WideLayout;

/** Header cell i's name as the person wrote it, for messages. */
function shown(cells: string[], index: number): string {
  return cells[index].trim() || `${index + 1}`;
}

/** The layout the header row gives; ImportFault when it gives none. */
export function readHeader(cells: string[]): Layout {
  const names = cells.map((cell) => cell.trim().toLowerCase());
  const seen = new Map<string, number>();
  for (const [index, name] of names.entries()) {
    if (name === '') continue;
    const first = seen.get(name);
    if (first !== undefined)
      throw new ImportFault(
        rowWhere(1, shown(cells, index)),
        `The header has the column "${cells[index].trim()}" twice (columns ${first + 1} and ${index + 1}).`,
      );
    seen.set(name, index);
  }
  const dates = names.flatMap((name, index) => (DATE_NAMES.has(name) ? [index] : []));
  if (dates.length === 0) throw new ImportFault(rowWhere(1), 'The first row must be a header with a date column (named "date"); this one has none.');
  if (dates.length > 1) throw new ImportFault(rowWhere(1), 'The header has two date columns ("date" and "day"); keep one.');
  const date = dates[0];
  const format: ImportFormat = seen.has('attribute') || seen.has('value') ? 'csv-long' : 'csv-wide';
  return format === 'csv-long' ? longLayout(cells, names, seen, date) : wideLayout(cells, names, date);
}

function longLayout(cells: string[], names: string[], seen: Map<string, number>, date: number): LongLayout {
  for (const needed of ['attribute', 'value']) {
    if (!seen.has(needed))
      throw new ImportFault(
        rowWhere(1),
        `A file with an "${needed === 'value' ? 'attribute' : 'value'}" column is in long form (date, attribute, value): its "${needed}" column is missing.`,
      );
  }
  for (const [index, name] of names.entries()) {
    if (index !== date && !(LONG_NAMES as readonly string[]).includes(name))
      throw new ImportFault(
        rowWhere(1, shown(cells, index)),
        `Unknown column "${cells[index].trim()}": a long-form file has the columns date, attribute and value (and Daybook's own export label and group).`,
      );
  }
  const label = seen.get('label');
  const group = seen.get('group');
  return {
    format: label !== undefined && group !== undefined ? 'daybook-csv' : 'csv-long',
    cellCount: cells.length,
    date,
    attribute: seen.get('attribute')!,
    value: seen.get('value')!,
    ...(label === undefined ? {} : { label }),
    ...(group === undefined ? {} : { group }),
  };
}

function wideLayout(cells: string[], names: string[], date: number): WideLayout {
  const columns: WideLayout['columns'] = [];
  for (const [index, name] of names.entries()) {
    if (index === date) continue;
    if (name === '')
      throw new ImportFault(rowWhere(1, `${index + 1}`), `Column ${index + 1} has no header: name the attribute it holds, or delete the column.`);
    columns.push({ index, key: cells[index].trim() });
  }
  if (columns.length === 0)
    throw new ImportFault(rowWhere(1), 'The header has a date column and nothing else: add a column per attribute (or attribute and value columns).');
  return { format: 'csv-wide', cellCount: cells.length, date, columns };
}
