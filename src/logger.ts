/** The structured log: pino JSON lines. Credentials never reach it (see http/request-context). */
import pino, { type Logger } from 'pino';

export function createLogger(level: string, destination: 1 | 2 = 1): Logger {
  return pino(
    {
      level,
      base: { service: 'daybook' },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.client_secret', '*.token'], censor: '[redacted]' },
    },
    pino.destination({ fd: destination, sync: destination === 2 }),
  );
}
