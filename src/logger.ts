/** The structured log: pino JSON lines. Credentials never reach it (see http/request-context). */
import pino, { type Logger } from 'pino';

/**
 * The service's log (stdout) is written in blocks of about 12 KB rather than a write per line: one
 * line per request was a system call per request, the largest single item of a cheap read's own
 * CPU after its database round trips (docs/request-path.md). A line waits at most
 * FLUSH_INTERVAL_MS; warnings and errors, and the start-up and shutdown lines (flushed by their
 * callers), are written at once, and whatever is buffered is written synchronously when the
 * process exits (pino's exit hook). Standard error (the CLI's log) stays synchronous.
 */
const BUFFER_BYTES = 12 * 1024; // sonic-boom needs it below its largest write (16 KB)
const FLUSH_INTERVAL_MS = 250;
const WARN = 40;

export function createLogger(level: string, destination: 1 | 2 = 1): Logger {
  const buffered = destination === 1;
  const stream = pino.destination({ fd: destination, sync: !buffered, minLength: buffered ? BUFFER_BYTES : 0 });
  if (buffered) setInterval(() => stream.flush(), FLUSH_INTERVAL_MS).unref();
  return pino(
    {
      level,
      base: { service: 'daybook' },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.client_secret', '*.token'], censor: '[redacted]' },
      ...(buffered && {
        hooks: {
          logMethod(args, method, lineLevel) {
            method.apply(this, args);
            if (lineLevel >= WARN) stream.flush();
          },
        },
      }),
    },
    stream,
  );
}
