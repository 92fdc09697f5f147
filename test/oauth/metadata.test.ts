/** RFC 8414 metadata at /.well-known/oauth-authorization-server and RFC 9207 `iss` on authorisation responses. */
import http from 'node:http';
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { REDIRECT_URI, authorizePath, decide, locationQuery, pkcePair, registerApp } from '../support/web';
import { ALL_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const METADATA = '/.well-known/oauth-authorization-server';

/** GET with a Host header of our choosing (fetch always sends the URL's own host). */
function getWithHost(baseUrl: string, path: string, host: string): Promise<{ status: number; vary: string; body: any }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.get({ hostname: url.hostname, port: url.port, path, headers: { Host: host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, vary: String(res.headers.vary ?? ''), body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
}

describe('GET /.well-known/oauth-authorization-server', () => {
  test('names the instance as issuer and every endpoint under it, with what the endpoints really accept', async () => {
    const res = await app.get(METADATA);
    expect(res.status).toBe(200);
    const issuer = app.baseUrl;
    expect(res.body).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/oauth2/authorize`,
      token_endpoint: `${issuer}/oauth2/access_token`,
      revocation_endpoint: `${issuer}/oauth2/revoke`,
      scopes_supported: [...ALL_SCOPE_NAMES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/docs/oauth/`,
    });
    expect(res.body.scopes_supported).toEqual(expect.arrayContaining(['activity_read', 'manual_write', 'read', 'read+write']));
  });

  test('may be cached for an hour (keyed on the host without PUBLIC_URL) and read by any web page', async () => {
    const res = await app.get(METADATA, { headers: { Origin: 'https://app.example.net' } });
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('vary')).toContain('Host');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('with PUBLIC_URL, the issuer and every URL are PUBLIC_URL, whatever the Host header says', async () => {
    const public_ = await startTestApp({ PUBLIC_URL: 'https://daybook.example.test' });
    try {
      const res = await getWithHost(public_.baseUrl, METADATA, 'elsewhere.example.net');
      expect(res.status).toBe(200);
      expect(res.body.issuer).toBe('https://daybook.example.test');
      expect(res.body.token_endpoint).toBe('https://daybook.example.test/oauth2/access_token');
      expect(res.vary).not.toContain('Host');
      expect((await public_.get(METADATA)).body.issuer).toBe('https://daybook.example.test');
    } finally {
      await public_.close();
    }
  });

  test('without PUBLIC_URL, a host the service does not answer to is refused (400), never named as issuer', async () => {
    const res = await getWithHost(app.baseUrl, METADATA, 'evil.example.net');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain('evil.example.net');
    const localhost = await getWithHost(app.baseUrl, METADATA, `localhost:${new URL(app.baseUrl).port}`);
    expect(localhost.body.issuer).toBe(`http://localhost:${new URL(app.baseUrl).port}`);
  });
});

describe('iss on authorisation responses (RFC 9207)', () => {
  async function setUp() {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    const { client } = await registerApp(app, user);
    const { challenge } = pkcePair();
    const params = {
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'activity_read',
      state: 's-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const issuer = (await app.get(METADATA)).body.issuer as string;
    return { session, params, issuer };
  }

  test('the code redirect carries iss, the metadata issuer', async () => {
    const { session, params, issuer } = await setUp();
    const query = locationQuery(await decide(app, session, params, 'allow'));
    expect(query.get('code')).toEqual(expect.any(String));
    expect(query.get('state')).toBe('s-1');
    expect(query.get('iss')).toBe(issuer);
  });

  test('the access_denied redirect carries iss', async () => {
    const { session, params, issuer } = await setUp();
    const query = locationQuery(await decide(app, session, params, 'deny'));
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('iss')).toBe(issuer);
  });

  test('an error redirect for a bad request carries iss', async () => {
    const { session, params, issuer } = await setUp();
    const res = await app.get(authorizePath({ ...params, response_type: 'code', scope: 'steps_read' }), { session });
    expect(res.status).toBe(303);
    const query = locationQuery(res);
    expect(query.get('error')).toBe('invalid_scope');
    expect(query.get('state')).toBe('s-1');
    expect(query.get('iss')).toBe(issuer);
  });
});
