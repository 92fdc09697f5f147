/**
 * Client credentials in HTTP Basic as RFC 6749 section 2.3.1 encodes them (each part
 * form-urlencoded before base64): read by the token endpoint's client authentication and by the
 * apps' own operations (app-credentials.ts).
 */

/** application/x-www-form-urlencoded decoding of a Basic credential part (RFC 6749 section 2.3.1). */
function formDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** The client id and secret of an HTTP Basic header, or undefined when it is malformed. */
export function basicCredentials(header: string): { id: string; secret: string } | undefined {
  const match = /^basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return id === undefined || secret === undefined ? undefined : { id, secret };
}
