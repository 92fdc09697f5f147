/**
 * The text of export.xml, chunk by chunk, from a bare export.xml or from inside the export.zip the
 * phone writes (streamed out of the zip with yauzl, never unpacked to disk or held whole). Reports
 * how many bytes of the file itself have been read: for a zip, the compressed bytes, estimated from
 * how much of export.xml has come out.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import yauzl from 'yauzl';
import { ImportFault } from '../types';

/** Receives each piece of text, with the file's bytes read so far and its size. */
export type TextSink = (text: string, bytes: number, totalBytes: number) => void;

const CHUNK = 64 * 1024;

/** export.xml, at the top of the zip or in its apple_health_export/ folder (not export_cda.xml). */
const EXPORT_ENTRY = /(^|\/)export\.xml$/;

/** Reads the export's XML text into `sink`; throws ImportFault for a zip that is not a readable export. */
export async function streamExportText(path: string, sink: TextSink): Promise<{ entry: string }> {
  const { size } = await stat(path);
  if (await isZip(path)) return streamFromZip(path, size, sink);
  await pump(createReadStream(path, { highWaterMark: CHUNK }), (n) => n, size, sink, 'the file');
  return { entry: 'export.xml' };
}

async function isZip(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await file.read(head, 0, 4, 0);
    return bytesRead === 4 && head.readUInt32LE(0) === 0x04034b50; // "PK\x03\x04", a zip's first local header
  } finally {
    await file.close();
  }
}

async function streamFromZip(path: string, size: number, sink: TextSink): Promise<{ entry: string }> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (e) {
    throw new ImportFault(
      'the zip',
      `The zip is truncated or damaged (${(e as Error).message}); make the export on the phone again and upload the whole file.`,
    );
  }
  try {
    const entry = await findEntry(zip);
    if (entry === undefined) throw new ImportFault('the zip', 'This zip is not an Apple Health export: it holds no export.xml.');
    let stream: Readable;
    try {
      stream = await zip.openReadStreamPromise(entry);
    } catch (e) {
      throw new ImportFault(entry.fileName, `The zip is damaged (${(e as Error).message}).`);
    }
    // Compressed bytes read, estimated from the uncompressed ones (the two grow together).
    const ratio = entry.uncompressedSize > 0 ? entry.compressedSize / entry.uncompressedSize : 1;
    const toFileBytes = (n: number): number => Math.min(size, Math.round(entry.relativeOffsetOfLocalHeader + n * ratio));
    await pump(stream, toFileBytes, size, sink, `${entry.fileName} in the zip`);
    return { entry: entry.fileName };
  } finally {
    zip.close();
  }
}

function findEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: yauzl.Entry): void => {
      if (EXPORT_ENTRY.test(entry.fileName)) finish(entry);
      else zip.readEntry();
    };
    const onError = (e: Error): void => {
      zip.off('entry', onEntry);
      reject(new ImportFault('the zip', `The zip is damaged (${e.message}).`));
    };
    const finish = (entry?: yauzl.Entry): void => {
      zip.off('entry', onEntry);
      zip.off('error', onError);
      resolve(entry);
    };
    zip.on('entry', onEntry);
    zip.on('error', onError);
    zip.once('end', () => finish());
    zip.readEntry();
  });
}

async function pump(stream: Readable, toFileBytes: (n: number) => number, size: number, sink: TextSink, what: string): Promise<void> {
  const decoder = new StringDecoder('utf8');
  const chunks = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let read = 0;
  try {
    await readAll();
  } finally {
    stream.destroy(); // also when the sink stopped reading (a fault in the XML)
  }
  const rest = decoder.end();
  if (rest.length > 0) sink(rest, size, size);

  async function readAll(): Promise<void> {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch (e) {
        // Only the stream's own errors (a damaged deflate stream, a short file) are the file's fault.
        throw new ImportFault(`${what}, byte ${read.toLocaleString('en')}`, `The file is damaged or cut short (${(e as Error).message}).`);
      }
      if (next.done === true) break;
      read += next.value.length;
      sink(decoder.write(next.value), toFileBytes(read), size);
    }
  }
}
