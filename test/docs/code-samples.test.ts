/**
 * Issue 29, item 1: every operation of the three bundled documents carries code samples (curl,
 * Python requests, JavaScript fetch) for its own path and method, with the credential it takes;
 * and the curl samples of read operations, as a served document shows them, work as pasted
 * against a running Daybook.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { registerApp } from '../support/web';
import { requireCommand } from '../support/commands';
import { BUNDLES_DIR } from '../../src/paths';

const run = promisify(execFile);

// The lead's merge adds 'TypeScript client' (client/code-samples.mjs) as the fourth label.
const LABELS = ['curl', 'Python (requests)', 'JavaScript (fetch)', 'TypeScript client'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const SERVER = 'https://daybook.example.org';

interface Sample {
  lang: string;
  label: string;
  source: string;
}
interface Operation {
  operationId: string;
  method: string;
  path: string;
  security: Array<Record<string, string[]>>;
  samples: Sample[];
}

function operationsOf(name: string): Operation[] {
  const doc = JSON.parse(fs.readFileSync(path.join(BUNDLES_DIR, `${name}.json`), 'utf8'));
  return Object.entries<any>(doc.paths).flatMap(([p, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      operationId: item[method].operationId,
      method: method.toUpperCase(),
      path: p,
      security: item[method].security ?? doc.security,
      samples: item[method]['x-codeSamples'],
    })),
  );
}

/** The credential an operation takes, read from its security requirements (independently of the sample writer). */
function expectedAuth(op: Operation): 'bearer' | 'basic' | 'body' | 'session' | 'none' {
  const names = op.security.flatMap((requirement) => Object.keys(requirement));
  if (names.includes('OAuth2')) return 'bearer';
  // The token and revocation endpoints' examples carry client_id and client_secret in the form (client_secret_post).
  if (op.operationId === 'createAccessToken' || op.operationId === 'revokeToken') return 'body';
  if (names.includes('ClientCredentials') || names.includes('ClientBasic')) return 'basic';
  if (names.includes('Session')) return 'session';
  return 'none';
}

/** The URL's path matches the operation's path template ({id} is one segment). */
function pathPattern(template: string): RegExp {
  return new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/?]+')}$`);
}

function urlIn(source: string, pattern: RegExp): URL {
  const match = pattern.exec(source);
  if (!match) throw new Error(`no URL in sample:\n${source}`);
  return new URL(match[1]);
}

describe.each(['v2', 'v1', 'oauth'])('the bundled %s document', (name) => {
  const operations = operationsOf(name);

  test('every operation has curl, Python and JavaScript samples, in that order', () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) expect([op.operationId, op.samples?.map((s) => s.label)]).toEqual([op.operationId, LABELS]);
  });

  test.each(operations.map((op) => [op.operationId, op] as const))('%s: each sample calls its path with its method and credential', (_, op) => {
    const [curl, python, js] = op.samples;
    const pattern = pathPattern(op.path);
    const auth = expectedAuth(op);
    if (op.operationId === 'showAuthorizationPage') {
      // A page for the person's browser: every sample opens the URL, none calls it.
      expect(urlIn(curl.source, /xdg-open '([^']+)'/).pathname).toMatch(pattern);
      expect(python.source).toContain(`webbrowser.open("${SERVER}${op.path}?"`);
      expect(js.source).toContain(`window.location.assign(\`${SERVER}${op.path}?`);
      return;
    }
    const curlUrl = urlIn(curl.source, /--url '?([^' \n]+)'?/);
    expect(curlUrl.origin + curlUrl.pathname).toMatch(new RegExp(`^${SERVER}`));
    expect(curlUrl.pathname).toMatch(pattern);
    expect(curl.source).toContain(`curl --request ${op.method} `);
    expect(urlIn(python.source, /url = "([^"]+)"/).pathname).toMatch(pattern);
    expect(python.source).toMatch(new RegExp(`requests\\.${op.method.toLowerCase()}\\(url`));
    expect(urlIn(js.source, /const url = '([^']+)'/).pathname).toMatch(pattern);
    expect(js.source).toContain(`method: '${op.method}'`);

    const credentials = {
      bearer: [`--header "Authorization: Bearer $ACCESS_TOKEN"`, '"Authorization": "Bearer <ACCESS_TOKEN>"', "Authorization: 'Bearer <ACCESS_TOKEN>'"],
      basic: ['--user "$CLIENT_ID:$CLIENT_SECRET"', 'auth=("<CLIENT_ID>", "<CLIENT_SECRET>")', 'Authorization: `Basic ${btoa(`<CLIENT_ID>:<CLIENT_SECRET>`)}`'],
      body: ['--data client_secret=', '"client_secret": ', 'client_secret: '],
      session: ['--cookie "daybook_session=$SESSION"', '"cookie": "daybook_session=<SESSION>"', "cookie: 'daybook_session=<SESSION>'"],
      none: [],
    }[auth];
    credentials.forEach((credential, i) => expect(op.samples[i].source).toContain(credential));
    if (auth !== 'bearer') for (const sample of op.samples) expect(sample.source).not.toContain('Bearer');
    if (auth !== 'basic') for (const sample of op.samples) expect(sample.source).not.toMatch(/Basic|auth=\(/);
  });
});

describe('curl samples of read operations, as served, work when pasted', () => {
  let app: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    app = await startTestApp();
    const { user, simpleToken } = await makeUser(app);
    const { client } = await makeClient(app, user);
    const token = await makeToken(app, user, client, ['activity_read', 'sleep_read']);
    const own = await registerApp(app, user, { name: 'Webhook sender' });
    // What a person sets once in their shell (the quick start does it for ACCESS_TOKEN).
    env = { ACCESS_TOKEN: token.access_token, SIMPLE_TOKEN: simpleToken, CLIENT_ID: own.client.client_id, CLIENT_SECRET: own.secret! };
  });
  afterAll(async () => {
    await app.close();
  });

  async function curlStatus(source: string): Promise<{ status: number; body: string }> {
    requireCommand('curl', 'these samples are curl commands');
    // The sample exactly as shown, with curl asked to print the status after the body.
    const { stdout } = await run('bash', ['-c', `${source} --silent --show-error --write-out '\\n%{http_code}'`], {
      env: { PATH: process.env.PATH, ...env },
    });
    const lines = stdout.split('\n');
    return { status: Number(lines.pop()), body: lines.join('\n') };
  }

  test.each([
    ['v2', '/api/2/accounts/profile/', 'get'],
    ['v2', '/api/2/attributes/', 'get'],
    ['v2', '/api/2/attributes/with-values/', 'get'],
    ['v2', '/api/2/attributes/templates/', 'get'],
    ['v2', '/api/2/webhooks/', 'get'],
    ['v1', '/api/1/users/{username}/profile/', 'get'],
  ])('%s %s', async (name, p, method) => {
    const served = (await app.get(`/openapi/${name}.json`, { unvalidated: true })).body;
    const curl = served.paths[p][method]['x-codeSamples'][0].source as string;
    expect(curl).toContain(`${app.baseUrl}/`);
    const { status, body } = await curlStatus(curl);
    expect([status, body]).toEqual([200, expect.stringMatching(/^\{/)]);
  });
});
