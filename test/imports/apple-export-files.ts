/**
 * Small Apple Health exports written by the tests (export.xml or export.zip in a temp folder),
 * from the same pieces as the benchmark's generator (test/bench/apple-export.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAppleHealth } from '../../src/domain/imports/apple-health';
import type { FileValue, ImportReader, ReadProgress } from '../../src/domain/imports/types';
import { EXPORT_HEAD, EXPORT_TAIL, recordXml } from '../bench/apple-export';
import { writeZip } from '../bench/zip-writer';

export { recordXml, workoutXml } from '../bench/apple-export';

const HK = 'HKQuantityTypeIdentifier';

/** A quantity record: `at` and `until` are Apple timestamps ("2024-03-10 07:45:00 +0100"). */
export function quantity(type: string, sourceName: string, at: string, value: number, unit: string, until = at): string {
  return recordXml({ type: `${HK}${type}`, sourceName, unit, value, startDate: at, endDate: until });
}

/** A category record (sleep stages, mindful sessions, menstrual flow). */
export function category(type: string, sourceName: string, at: string, until: string, value?: string): string {
  return recordXml({ type: `HKCategoryTypeIdentifier${type}`, sourceName, startDate: at, endDate: until, ...(value === undefined ? {} : { value }) });
}

export class ExportFolder {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'daybook-apple-'));

  /** Writes export.xml with these body lines between the export's head and tail. */
  xml(lines: string[], name = 'export.xml'): string {
    const file = path.join(this.dir, name);
    writeFileSync(file, EXPORT_HEAD + lines.join('') + EXPORT_TAIL);
    return file;
  }

  /** Writes raw text (a broken or foreign file). */
  raw(text: string | Buffer, name: string): string {
    const file = path.join(this.dir, name);
    writeFileSync(file, text);
    return file;
  }

  /** Writes export.zip holding `entry` (apple_health_export/export.xml as the phone names it). */
  async zip(text: string, name = 'export.zip', entry = 'apple_health_export/export.xml'): Promise<string> {
    const file = path.join(this.dir, name);
    async function* pieces(): AsyncGenerator<string> {
      // Several pieces, so that reading crosses chunk boundaries.
      for (let i = 0; i < text.length; i += 1000) yield text.slice(i, i + 1000);
    }
    await writeZip(file, entry, pieces());
    return file;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Opens a file and reads every value, keyed "column date". */
export async function readAll(file: string, progress?: ReadProgress[]): Promise<{ reader: ImportReader; byDay: Map<string, FileValue> }> {
  const reader = await openAppleHealth(file, (p) => progress?.push(p));
  const byDay = new Map<string, FileValue>();
  for await (const v of reader.values()) byDay.set(`${v.key} ${v.date}`, v);
  return { reader, byDay };
}

/** The value of one column on one day (undefined when there is none). */
export const valueOf = (byDay: Map<string, FileValue>, key: string, date: string): FileValue['value'] | undefined => byDay.get(`${key} ${date}`)?.value;

export { EXPORT_HEAD, EXPORT_TAIL };
