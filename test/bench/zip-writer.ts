/**
 * A zip of one file, streamed to disk (deflate, sizes in a data descriptor after the data, as
 * phones write zips they stream), for the Apple Health export generator and the import tests.
 * No package in the project writes zips; this is the few fields the format needs (APPNOTE 4.3).
 * Up to 4 GiB (no zip64).
 */
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import zlib from 'node:zlib';

const DOS_DATE = ((2024 - 1980) << 9) | (3 << 5) | 10; // 2024-03-10, a fixed date: the same input gives the same zip
const FLAG_DATA_DESCRIPTOR = 0x0008;
const DEFLATE = 8;

/** Writes a zip at `path` holding `entryName` with the text `source` yields. */
export async function writeZip(path: string, entryName: string, source: AsyncIterable<string>): Promise<void> {
  const file = await open(path, 'w');
  try {
    const name = Buffer.from(entryName);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(FLAG_DATA_DESCRIPTOR, 6);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt16LE(name.length, 26);
    await file.write(Buffer.concat([local, name]));

    const deflate = zlib.createDeflateRaw({ level: 6 });
    let crc = 0;
    let size = 0;
    const feed = (async () => {
      for await (const text of source) {
        const b = Buffer.from(text);
        crc = zlib.crc32(b, crc);
        size += b.length;
        if (!deflate.write(b)) await once(deflate, 'drain');
      }
      deflate.end();
    })().catch((e: Error) => deflate.destroy(e));
    let compressed = 0;
    for await (const chunk of deflate as AsyncIterable<Buffer>) {
      await file.write(chunk);
      compressed += chunk.length;
    }
    await feed;

    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(compressed, 8);
    descriptor.writeUInt32LE(size, 12);
    await file.write(descriptor);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(FLAG_DATA_DESCRIPTOR, 8);
    central.writeUInt16LE(DEFLATE, 10);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(compressed, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(0, 42); // the local header is at the start
    const centralOffset = 30 + name.length + compressed + 16;
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(46 + name.length, 12);
    end.writeUInt32LE(centralOffset, 16);
    await file.write(Buffer.concat([central, name, end]));
  } finally {
    await file.close();
  }
}
