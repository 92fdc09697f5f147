/**
 * The verification's request filter: the contracts carry example credentials (`Bearer
 * dashboard-access-token`, `client_id=example-client-id`, `code=example-authorisation-code`, HTTP
 * Basic with `example-client-id:example-client-secret`…);
 * before each request reaches the service, they are replaced by the real ones the interaction's
 * provider states made. Nothing else in the request changes.
 *
 * It also re-encodes form bodies: the Pact proxy parses `application/x-www-form-urlencoded`
 * bodies into objects and would otherwise forward them as JSON under the form content type.
 */
import type { VerifierOptions } from '@pact-foundation/pact';
import type { World } from './provider-states';
import { PASSWORD } from './provider-states';

/** Form fields that carry credentials, and where the World keeps the real value. */
function formCredential(world: World, field: string): string | undefined {
  switch (field) {
    case 'client_id':
      return world.client?.client.client_id;
    case 'client_secret':
      return world.client?.secret;
    case 'code':
      return world.code;
    case 'refresh_token':
      return world.tokens?.refresh_token;
    case 'username':
      return world.person?.user.username;
    case 'password':
      return world.person ? PASSWORD : undefined;
    default:
      return undefined;
  }
}

export function credentialsFilter(world: () => World): NonNullable<VerifierOptions['requestFilter']> {
  return (req, _res, next) => {
    // The filter also sees the proxy's own provider-state calls: leave those alone.
    if (!/^\/(api|oauth2)\//.test(req.path)) return next();
    const w = world();
    const authorization = req.headers.authorization;
    if (authorization?.startsWith('Bearer ') && w.tokens) req.headers.authorization = `Bearer ${w.tokens.access_token}`;
    if (authorization?.startsWith('Token ') && w.person) req.headers.authorization = `Token ${w.person.simpleToken}`;
    // The app's own credentials (webhook management, the ClientCredentials scheme).
    if (authorization?.startsWith('Basic ') && w.client)
      req.headers.authorization = `Basic ${Buffer.from(`${w.client.client.client_id}:${w.client.secret}`).toString('base64')}`;

    const contentType = req.headers['content-type'] ?? '';
    let body: Buffer | undefined;
    if (contentType.startsWith('application/x-www-form-urlencoded') && req.body && !Buffer.isBuffer(req.body)) {
      const form = new URLSearchParams();
      for (const [field, value] of Object.entries(req.body as Record<string, string>)) form.append(field, formCredential(w, field) ?? value);
      body = Buffer.from(form.toString());
    } else if (req.body && !Buffer.isBuffer(req.body) && typeof req.body === 'object' && contentType.startsWith('application/json')) {
      body = Buffer.from(JSON.stringify(req.body));
    }
    if (body) {
      // The proxy forwards a Buffer body as it is; its length must match what it sends.
      req.body = body;
      req.headers['content-length'] = String(body.length);
    }
    next();
  };
}
