/**
 * Opens an import file of any format Daybook reads (docs/imports.md, "Formats"), by what the file
 * is rather than its name: a zip (`PK\x03\x04`) or XML (`<`) is an Apple Health export, JSON
 * (`{`) a Daybook export, anything else text is CSV (Daybook's own, long or wide: the CSV reader
 * tells them apart by the header). A file that is none of them is refused with where and why.
 */
import { open } from 'node:fs/promises';
import { openAppleHealth } from './apple-health';
import { openCsv } from './csv';
import { openDaybookJson } from './daybook-json';
import { ImportFault, type ImportReader, type OpenReader, type ProgressListener } from './types';

/** Bytes looked at to tell the format. */
const SNIFF_BYTES = 512;

type Family = 'zip' | 'xml' | 'json' | 'csv';

/** The format family of the file's first bytes. */
export function sniff(head: Buffer): Family | undefined {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return 'zip';
  // A UTF-8 byte order mark, then white space, then the first character.
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const first = text.trimStart()[0];
  if (first === undefined) return undefined;
  if (first === '<') return 'xml';
  if (first === '{') return 'json';
  // Binary files (a NUL byte, or not UTF-8 text) are no CSV.
  // (A character cut by the end of the sniffed bytes is no sign of binary: the last 3 bytes are left out.)
  const whole = head.length === SNIFF_BYTES ? head.subarray(0, SNIFF_BYTES - 3) : head;
  if (head.includes(0) || whole.toString('utf8').includes('\uFFFD')) return undefined;
  return 'csv';
}

const READERS: Partial<Record<Family, OpenReader>> = {
  zip: openAppleHealth,
  xml: openAppleHealth,
  json: openDaybookJson,
  csv: openCsv,
};

/** Opens the file with the reader its content calls for. */
export const openImportFile: OpenReader = async (path: string, onProgress?: ProgressListener): Promise<ImportReader> => {
  const handle = await open(path, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head.length === 0) throw new ImportFault('the start of the file', 'The file is empty.');
  const family = sniff(head);
  const reader = family ? READERS[family] : undefined;
  if (!reader) {
    throw new ImportFault(
      'the start of the file',
      "This is not a file Daybook can import: an Apple Health export (export.zip or export.xml), Daybook's CSV or JSON export, or a CSV with a date column.",
    );
  }
  return reader(path, onProgress);
};
