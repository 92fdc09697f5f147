/**
 * The upload of /settings/import (docs/pages.md, "Importing"): a multipart form read as a stream
 * (busboy) and written straight to a file under IMPORT_DIR, never held in memory, whatever its
 * size. The form's anti-forgery token comes first in the form, so it is checked before a byte of
 * the file is written; a file past IMPORT_MAX_BYTES is cut off there, its part removed, and the
 * person gets a 413 page saying the limit. A body declared larger than that is refused before it
 * is read. The body is a declared long one (http/body-deadline.ts): not bound by
 * HTTP_REQUEST_TIMEOUT_MS, but it must keep arriving (IMPORT_UPLOAD_IDLE_MS) and arrive in full
 * within IMPORT_UPLOAD_TIMEOUT_MS, else 408 and nothing of it is kept.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { finished, PassThrough, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type Koa from 'koa';
import type { Session } from '../../domain/identity/sessions';
import { BodyDeadlinePassed, takeLongBody, type LongBodyLimits } from '../../http/body-deadline';
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
  /** How long the body may pause and take in all (IMPORT_UPLOAD_IDLE_MS, IMPORT_UPLOAD_TIMEOUT_MS). */
  deadline: LongBodyLimits;
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

/** "2 minutes", "4 hours", "300 ms": a duration in words a person reads. */
function durationInWords(ms: number): string {
  const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  if (ms % 60_000 === 0) return plural(ms / 60_000, 'minute');
  if (ms % 1000 === 0) return plural(ms / 1000, 'second');
  return `${ms} ms`;
}

function tooSlow(reason: BodyDeadlinePassed): HttpError {
  const what =
    reason.kind === 'idle'
      ? `Nothing of the file arrived for ${durationInWords(reason.limits.idleMs)}, so the upload was stopped`
      : `The upload took longer than ${durationInWords(reason.limits.totalMs)}, the longest Daybook waits for one`;
  return new HttpError(408, `${what}. Nothing of it was kept: try again on a steadier connection.`, { headers: { Connection: 'close' } });
}

/**
 * The request's body, as a stream the deadline can stop: on `signal` it ends with the deadline's
 * reason while the request itself stays open (unlike pipeline's destroying it, which would cut the
 * connection before the 408 is sent). A request cut by the client ends it with that error.
 */
function stoppableBody(request: Koa.Context['req'], signal: AbortSignal): PassThrough {
  const body = new PassThrough();
  const stop = (): void => {
    request.unpipe(body);
    body.destroy(signal.reason as Error);
  };
  if (signal.aborted) {
    stop();
    return body;
  }
  request.pipe(body);
  finished(request, { writable: false }, (error) => {
    if (error) body.destroy(error);
  });
  signal.addEventListener('abort', stop, { once: true });
  return body;
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
  const deadline = takeLongBody(ctx.req, ctx.res, limits.deadline);
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
    await pipeline(stoppableBody(ctx.req, deadline), parser);
    await writing;
  } catch (error) {
    // The file's own stream settles first (busboy ends it when destroyed), so that nothing is written after the removal.
    await writing.catch(() => undefined);
    if (saved) await removeQuietly(saved.path);
    if (deadline.reason instanceof BodyDeadlinePassed) throw tooSlow(deadline.reason);
    if (refusal) throw refusal;
    throw new HttpError(400, `The upload did not arrive whole (${(error as Error).message.slice(0, 200)}). Try again.`);
  }
  if (refusal || !saved || saved.counter.bytes === 0) {
    if (saved) await removeQuietly(saved.path);
    throw refusal ?? new HttpError(400, 'Choose a file to import: none (or an empty one) was sent.');
  }
  return { name: saved.name, path: saved.path, bytes: saved.counter.bytes };
}
