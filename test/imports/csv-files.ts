/**
 * Files for the CSV reader's tests: written to a folder of the test file's own, read back through
 * the reader as the engine reads them (columns when open, then every value in order).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openCsv } from '../../src/domain/imports/csv';
import { ImportFault, type FileColumn, type FileValue, type ImportFormat } from '../../src/domain/imports/types';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-csv-'));
let files = 0;

/** Writes `content` (text as UTF-8, or bytes) to a new file and answers its path. */
export function csvFile(content: string | Buffer): string {
  files += 1;
  const file = path.join(folder, `file-${files}.csv`);
  fs.writeFileSync(file, content);
  return file;
}

export function removeCsvFiles(): void {
  fs.rmSync(folder, { recursive: true, force: true });
}

export interface Read {
  format: ImportFormat;
  columns: FileColumn[];
  values: FileValue[];
  /** What stopped the values, when something did. */
  fault?: { where: string; message: string };
}

/** Opens the file and reads every value; a fault while reading values is returned with the values before it. */
export async function readCsv(file: string): Promise<Read> {
  const reader = await openCsv(file);
  const values: FileValue[] = [];
  try {
    for await (const value of reader.values()) values.push(value);
  } catch (error) {
    if (!(error instanceof ImportFault)) throw error;
    return { format: reader.format, columns: reader.columns, values, fault: { where: error.where, message: error.message } };
  }
  return { format: reader.format, columns: reader.columns, values };
}

/** The fault opening the file throws (fails the test when it opens). */
export async function openFault(file: string): Promise<{ where: string; message: string }> {
  try {
    await openCsv(file);
  } catch (error) {
    if (error instanceof ImportFault) return { where: error.where, message: error.message };
    throw error;
  }
  throw new Error('the file opened');
}

/** Values as [key, date, value] triples, to compare at a glance. */
export function triples(values: FileValue[]): Array<[string, string, FileValue['value']]> {
  return values.map((v) => [v.key, v.date, v.value]);
}
