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

/** Where RFC 8414 puts the authorization server metadata: at the root, outside /oauth2/, but in the OAuth document. */
export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * The OAuth endpoints an app calls from its own code, never with a person's cookie: metadata,
 * token and revocation. They answer other origins (CORS) and are not the person's forms.
 */
export const OAUTH_APP_PATHS: ReadonlySet<string> = new Set([OAUTH_METADATA_PATH, '/oauth2/access_token', '/oauth2/revoke']);

/**
 * The authorisation page and its consent form: pages for the person, in the OAuth document only
 * because apps send people there. They are never counted against, nor refused by, the API quota
 * (an app or a script that spent the person's hour must not keep her from consenting); like every
 * page they are limited by what pages have: the session, the anti-forgery token, and the sign-in
 * throttles on the log-in page they send a logged-out person to (docs/security.md, "Pages,
 * exports and headers").
 */
export const PERSON_PAGE_PATHS: ReadonlySet<string> = new Set(['/oauth2/authorize']);

/** Does the API quota (http/rate-limit.ts) count and limit this path? */
export function countedByQuota(pathname: string): boolean {
  return apiFor(pathname) !== undefined && !PERSON_PAGE_PATHS.has(pathname);
}

/** Which document serves a path. */
export function apiFor(pathname: string): ApiName | undefined {
  if (pathname.startsWith('/api/2/')) return 'v2';
  if (pathname.startsWith('/api/1/')) return 'v1';
  if (pathname.startsWith('/oauth2/') || pathname === OAUTH_METADATA_PATH) return 'oauth';
  return undefined;
}
