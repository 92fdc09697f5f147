/**
 * The API documents Daybook serves (openapi/: v2, v1 and the OAuth endpoints), as bundled in
 * generated/openapi/, and which of them serves a path.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Document } from 'openapi-backend';
import { BUNDLES_DIR } from '../paths';

export type ApiName = 'v2' | 'v1' | 'oauth';

export function loadBundle(name: ApiName): Document {
  return JSON.parse(fs.readFileSync(path.join(BUNDLES_DIR, `${name}.json`), 'utf8')) as Document;
}

/** Which document serves a path. */
export function apiFor(pathname: string): ApiName | undefined {
  if (pathname.startsWith('/api/2/')) return 'v2';
  if (pathname.startsWith('/api/1/')) return 'v1';
  if (pathname.startsWith('/oauth2/')) return 'oauth';
  return undefined;
}
