/**
 * The upload of /settings/import (docs/pages.md, "Importing"): a multipart form read as a stream
 * (busboy) and written straight to a file under IMPORT_DIR, never held in memory, whatever its
 * size. The form's anti-forgery token comes first in the form, so it is checked before a byte of
 * the file is written; a file past IMPORT_MAX_BYTES is cut off there, its part removed, and the
 * person gets a 413 page saying the limit. A body declared larger than that is refused before it
 * is read.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type Koa from 'koa';
import type { Session } from '../../domain/identity/sessions';
import { HttpError } from '../../http/errors';
import { csrfTokenValid } from '../csrf';

/** Room for the form's other fields and the multipart boundaries, above the file's own limit. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** The file as it now lies on disk. */
export interface UploadedFile {
  name: string;
  path: string;
  bytes: number;
}

export interface UploadLimits {
  maxBytes: number;
  dir: string;
  now: Date;
}

/** "2 GiB", "500 KiB": a limit in words a person reads. */
export function sizeInWords(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

function tooLarge(maxBytes: number): HttpError {
  // Connection: close, so that a browser still sending a large body stops and shows the page.
  return new HttpError(413, `The file is larger than ${sizeInWords(maxBytes)}, the largest Daybook takes. Nothing of it was kept.`, {
    headers: { Connection: 'close' },
  });
}

/** Counts the bytes that pass. */
class ByteCounter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

/** The name the browser gave the file, as the page shows it (no folders, no control characters, at most 200 characters). */
function displayName(name: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const base = path.basename((name ?? '').replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f]/g, '');
  return base.slice(0, 200) || 'file';
}

function removeQuietly(file: string): Promise<void> {
  return fs.promises.rm(file, { force: true });
}

/**
 * Reads the request's multipart body: the `csrf_token` field, then the `file` part streamed to a
 * new file. Answers the file, or throws the HttpError to show (403 bad token, 413 too large, 400 no
 * file); nothing is left on disk when it throws.
 */
export async function receiveUpload(ctx: Koa.Context, session: Session, limits: UploadLimits): Promise<UploadedFile> {
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'multipart/form-data') throw new HttpError(415, 'Send the file with the form on this page (multipart/form-data).');
  const declared = Number(ctx.get('Content-Length'));
  if (ctx.get('Content-Length') !== '' && Number.isFinite(declared) && declared > limits.maxBytes + FORM_OVERHEAD_BYTES) throw tooLarge(limits.maxBytes);
  await fs.promises.mkdir(limits.dir, { recursive: true });

  let csrfOk = false;
  let refusal: HttpError | undefined;
  let saved: { name: string; path: string; counter: ByteCounter } | undefined;
  let writing: Promise<void> = Promise.resolve();
  const parser = busboy({
    headers: ctx.req.headers,
    limits: { files: 1, fileSize: limits.maxBytes, fields: 10, fieldSize: 4096, parts: 12 },
  });
  parser.on('field', (name, value) => {
    if (name === 'csrf_token') csrfOk = csrfTokenValid(session.csrfSecret, value, limits.now);
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || saved || refusal) {
      stream.resume();
      return;
    }
    if (!csrfOk) {
      refusal = new HttpError(403, 'This form has expired or did not come from Daybook. Go back, reload the page and try again.');
      stream.resume();
      return;
    }
    const file = path.join(limits.dir, `${crypto.randomUUID()}.upload`);
    const counter = new ByteCounter();
    saved = { name: displayName(info.filename), path: file, counter };
    stream.on('limit', () => {
      refusal = tooLarge(limits.maxBytes);
    });
    writing = pipeline(stream, counter, fs.createWriteStream(file, { flags: 'wx' }));
  });
  try {
    await pipeline(ctx.req, parser);
    await writing;
  } catch (error) {
    if (saved) await removeQuietly(saved.path);
    if (refusal) throw refusal;
    throw new HttpError(400, `The upload did not arrive whole (${(error as Error).message.slice(0, 200)}). Try again.`);
  }
  if (refusal || !saved || saved.counter.bytes === 0) {
    if (saved) await removeQuietly(saved.path);
    throw refusal ?? new HttpError(400, 'Choose a file to import: none (or an empty one) was sent.');
  }
  return { name: saved.name, path: saved.path, bytes: saved.counter.bytes };
}
