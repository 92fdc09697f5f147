/**
 * A CSV file as UTF-8 text, streamed (docs/imports-csv.md, "The file"): read in chunks, decoded
 * strictly, the byte order mark dropped. A file that is not text is an ImportFault at once: a zip
 * or gzip archive (an Apple Health export given to the CSV reader), UTF-16 text (Excel's "Unicode
 * text"), anything with a NUL byte, or bytes that are not UTF-8 (a spreadsheet saved in a legacy
 * code page: "CSV UTF-8" is the choice to make).
 */
import { createReadStream } from 'node:fs';
import { ImportFault } from '../types';
import { count } from './where';

/** Bytes read at a time: large enough that per-chunk work is noise, small enough to stay small. */
const CHUNK_BYTES = 256 * 1024;

/** What the first bytes say the file is, when it is plainly not CSV text. */
function notTextReason(head: Buffer): string | undefined {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return 'It is a zip archive, not a CSV file.';
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'It is a gzip archive, not a CSV file.';
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)))
    return 'It is UTF-16 text; save it as "CSV UTF-8" and import that.';
  return undefined;
}

/**
 * The file's text, chunk by chunk; `onBytes` hears how many bytes have been read after each chunk.
 * Throws ImportFault (where: the file, or the byte) when the file is not UTF-8 text.
 */
export async function* textChunks(path: string, onBytes?: (bytes: number) => void): AsyncGenerator<string> {
  // ignoreBOM false (the default): the decoder drops a leading byte order mark itself.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  for await (const buffer of createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    if (bytes === 0) {
      const reason = notTextReason(buffer);
      if (reason) throw new ImportFault('the file', reason);
    }
    const nul = buffer.indexOf(0);
    if (nul >= 0) throw new ImportFault(`byte ${count(bytes + nul + 1)}`, 'The file is not text (it holds a NUL byte): is it a CSV file?');
    let text: string;
    try {
      text = decoder.decode(buffer, { stream: true });
    } catch {
      throw new ImportFault(
        `bytes ${count(bytes + 1)} to ${count(bytes + buffer.length)}`,
        'The file is not UTF-8 text; save it as "CSV UTF-8" and import that.',
      );
    }
    bytes += buffer.length;
    onBytes?.(bytes);
    if (text.length > 0) yield text;
  }
  try {
    const rest = decoder.decode();
    if (rest.length > 0) yield rest;
  } catch {
    throw new ImportFault('the end of the file', 'The file ends in the middle of a UTF-8 character: it is truncated or not UTF-8 text.');
  }
}
