/**
 * The server secret. From SECRET_KEY when set; in embedded mode a random one is made on the first
 * start and kept under DATA_DIR, so simple tokens stay the same across restarts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { SECRET_KEY_MIN_LENGTH, type Config } from './config';
import { newSecret } from './domain/identity/credentials';

export function resolveSecretKey(config: Config, logger: Logger): string {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, 'secret-key');
  if (!config.databaseUrl) {
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
    fs.mkdirSync(config.dataDir, { recursive: true });
    const key = newSecret(48);
    fs.writeFileSync(file, key + '\n', { mode: 0o600 });
    return key;
  }
  const level = config.nodeEnv === 'production' ? 'error' : 'warn';
  logger[level](
    'SECRET_KEY is not set: using a random key for this process only. Simple tokens handed out now change when the ' +
      `service restarts, and several instances will disagree. Set SECRET_KEY (at least ${SECRET_KEY_MIN_LENGTH} random characters) in production.`,
  );
  return newSecret(48);
}
