/**
 * The text of export.xml, chunk by chunk, from a bare export.xml or from inside the export.zip the
 * phone writes (streamed out of the zip with yauzl, never unpacked to disk or held whole). Reports
 * how many bytes of the file itself have been read: for a zip, the compressed bytes, estimated from
 * how much of export.xml has come out.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { ImportFault } from '../types';

/** Receives each piece of text, with the file's bytes read so far and its size. */
export type TextSink = (text: string, bytes: number, totalBytes: number) => void;

/**
 * Text is handed on in pieces of about this size: the unzipped stream comes in 16 KiB pieces, and
 * each piece handed on costs a decode and a parser call of its own. Larger pieces cost memory: their
 * text is a large object that only a full garbage collection frees (256 KiB pieces: +70 MB peak RSS).
 */
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
      stream = await openEntry(zip, entry);
    } catch (e) {
      throw new ImportFault(entry.fileName, `The zip is damaged (${(e as Error).message}).`);
    }
    // Compressed bytes read, estimated from the uncompressed ones (the two grow together).
    const ratio = entry.uncompressedSize > 0 ? entry.compressedSize / entry.uncompressedSize : 1;
    const toFileBytes = (n: number): number => Math.min(size, Math.round(entry.relativeOffsetOfLocalHeader + n * ratio));
    const length = await pump(stream, toFileBytes, size, sink, `${entry.fileName} in the zip`);
    if (length !== entry.uncompressedSize) {
      throw new ImportFault(`${entry.fileName} in the zip`, `The zip is damaged: export.xml has ${length} bytes where the zip says ${entry.uncompressedSize}.`);
    }
    return { entry: entry.fileName };
  } finally {
    zip.close();
  }
}

/**
 * The entry's text, inflated here rather than by yauzl: yauzl's inflate hands out 16 KiB pieces
 * through a byte-counting stream, and each piece costs the main thread a callback; 64 KiB pieces
 * cost a quarter of that (docs/apple-health.md, "Speed and size"). The inflate itself runs on
 * libuv's threadpool, off the parser's thread. Its length is checked as yauzl checks it, once read.
 */
async function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  if (entry.isEncrypted()) throw new Error('export.xml is encrypted');
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw new Error(`unsupported compression method: ${entry.compressionMethod}`);
  const raw = await zip.openReadStreamPromise(entry, { decodeFileData: false });
  if (entry.compressionMethod === 0) return raw;
  const inflate = createInflateRaw({ chunkSize: CHUNK });
  pipeline(raw, inflate, () => {}); // an error of either stream is the inflate's, seen by its reader
  return inflate;
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

/** Hands the stream's text to `sink`; answers how many bytes it had. */
async function pump(stream: Readable, toFileBytes: (n: number) => number, size: number, sink: TextSink, what: string): Promise<number> {
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
  return read;

  async function readAll(): Promise<void> {
    let pieces: Buffer[] = [];
    let gathered = 0;
    const handOn = (): void => {
      const piece = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, gathered);
      pieces = [];
      gathered = 0;
      sink(decoder.write(piece), toFileBytes(read), size);
    };
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
      pieces.push(next.value);
      gathered += next.value.length;
      if (gathered >= CHUNK) handOn();
    }
    if (gathered > 0) handOn();
  }
}
