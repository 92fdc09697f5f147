/** The structured log: pino JSON lines. Credentials never reach it (see http/request-context). */
import pino, { type Logger } from 'pino';

/**
 * The service's log (stdout) is written in blocks of about 12 KB rather than a write per line: one
 * line per request was a system call per request, the largest single item of a cheap read's own
 * CPU after its database round trips (docs/request-path.md). A line waits at most
 * FLUSH_INTERVAL_MS; warnings and errors, and the start-up and shutdown lines (flushed by their
 * callers), are written at once, and whatever is buffered is written synchronously when the
 * process exits (pino's exit hook). Standard error (the CLI's log) stays synchronous.
 *
 * The block is gathered as bytes (sonic-boom's `buffer` mode, each line encoded once as it comes):
 * gathered as text, sonic-boom measured the UTF-8 length of the whole block gathered so far at
 * every line (`Buffer.byteLength`), on average 6 KB read per line of 250 bytes, about 2 us a line
 * (docs/request-path.md, "Issue 35, third stop").
 */
const BUFFER_BYTES = 12 * 1024; // sonic-boom needs it below its largest write (16 KB)
const FLUSH_INTERVAL_MS = 250;
const WARN = 40;

/** The buffered destination of the service's log: lines encoded once, gathered as bytes. */
function blockDestination(fd: 1 | 2): { stream: pino.DestinationStream; flush(): void } {
  const blocks = pino.destination({ fd, sync: false, minLength: BUFFER_BYTES, contentMode: 'buffer' });
  // sonic-boom's `buffer` mode takes Buffers; its declared `write` still says string.
  const writeBytes = blocks.write.bind(blocks) as unknown as (bytes: Buffer) => boolean;
  const stream = {
    write: (line: string) => writeBytes(Buffer.from(line)),
    flush: (done?: (error?: Error) => unknown) => blocks.flush(done),
  };
  return { stream, flush: () => blocks.flush() };
}

export function createLogger(level: string, destination: 1 | 2 = 1): Logger {
  const buffered = destination === 1;
  const options = {
    level,
    base: { service: 'daybook' },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.client_secret', '*.token'], censor: '[redacted]' },
  };
  if (!buffered) return pino(options, pino.destination({ fd: destination, sync: true }));
  const { stream, flush } = blockDestination(destination);
  setInterval(flush, FLUSH_INTERVAL_MS).unref();
  return pino(
    {
      ...options,
      hooks: {
        logMethod(args, method, lineLevel) {
          method.apply(this, args);
          if (lineLevel >= WARN) flush();
        },
      },
    },
    stream,
  );
}

/** A field of a line written by `lineWriter`: what JSON.stringify writes as pino would. */
type LineFields = Record<string, string | number | Record<string, string | number | undefined> | undefined>;

/**
 * Writes lines of fixed, credential-free fields straight to the logger's stream, as the same JSON
 * pino writes for `logger.info(fields, msg)` (its level, time and bindings first, then the fields,
 * then the message): the request line of every request (http/request-context.ts). Pino's own path
 * walks the fields one by one through its serialisers and a safe stringifier, and the hooks
 * above; one `JSON.stringify` of fields known to be plain does the same work in a fraction of the
 * CPU (docs/request-path.md, "Issue 35, third stop"). A nested object's keys must be given in
 * alphabetical order, the order pino's stringifier writes them in. Nothing is redacted: the caller
 * writes no credential. The logger's level is read at each line, so a level changed later holds.
 */
export function lineWriter(logger: Logger): (level: 'info' | 'debug', fields: LineFields, msg: string) => void {
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  const bindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym];
  const prefixes = { info: `{"level":${logger.levels.values.info},"time":`, debug: `{"level":${logger.levels.values.debug},"time":` };
  const values = { info: logger.levels.values.info, debug: logger.levels.values.debug };
  return (level, fields, msg) => {
    if (logger.levelVal > values[level]) return;
    const body = JSON.stringify(fields);
    const rest = body.length > 2 ? `,${body.slice(1, -1)}` : '';
    stream.write(`${prefixes[level]}${Date.now()}${bindings}${rest},"msg":${JSON.stringify(msg)}}\n`);
  };
}
