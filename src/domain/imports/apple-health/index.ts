/**
 * Apple Health exports (export.zip as the phone writes it, or the export.xml inside) as an
 * ImportReader of daily values of the matching templates (docs/apple-health.md).
 *
 * The whole export is read when it is opened: a day's total is only known once every record of
 * the file has been seen (the file is ordered by record type, and each source's records come
 * apart), so columns and values come complete, and a fault anywhere in the file comes before any
 * value, so a broken export changes nothing.
 */
import type { FileColumn, FileValue, ImportReader, OpenReader, ProgressListener } from '../types';
import type { DayResult } from './daily';
import { streamExportText } from './file-source';
import { ALL_COLUMNS } from './mappings';
import { ExportReader } from './read-export';

/** Progress is reported at most this often (bytes of XML text between two reports). */
const PROGRESS_EVERY = 1 << 20;

export const openAppleHealth: OpenReader = async (path: string, onProgress?: ProgressListener): Promise<ImportReader> => {
  const reader = new ExportReader();
  let sinceReport = 0;
  let last = { bytes: 0, totalBytes: 0 };
  const { entry } = await streamExportText(path, (text, bytes, totalBytes) => {
    reader.write(text);
    last = { bytes, totalBytes };
    sinceReport += text.length;
    if (onProgress !== undefined && sinceReport >= PROGRESS_EVERY) {
      sinceReport = 0;
      onProgress({ bytes, totalBytes, records: reader.records });
    }
  });
  reader.end();
  onProgress?.({ bytes: last.totalBytes, totalBytes: last.totalBytes, records: reader.records });
  return toImportReader(reader.results(), entry);
};

function toImportReader(results: Map<string, DayResult[]>, entry: string): ImportReader {
  const columns = ALL_COLUMNS.filter((c) => (results.get(c.key)?.length ?? 0) > 0);
  return {
    format: 'apple-health',
    columns,
    async *values(): AsyncIterable<FileValue> {
      for (const column of columns) {
        for (const day of results.get(column.key) ?? []) {
          yield { key: column.key, date: day.date, value: stored(column, day.value), where: `${entry}: ${column.label} on ${day.date}, ${day.from}` };
        }
      }
    },
  };
}

/** A value as its template stores it: whole numbers for counts, minutes and times; floats to a sensible precision. */
function stored(column: FileColumn, value: number): number {
  switch (column.valueType) {
    case 1:
      return Math.round(value * 1000) / 1000;
    case 5:
      return Math.round(value * 10_000) / 10_000;
    default:
      return Math.round(value);
  }
}
