/**
 * Issue 29, item 3: the quick start in the v2 document's introduction works as written. Its
 * commands are read out of the served v2 document (so they name this instance) and run in order
 * with bash, one shell's variables carried from block to block, against a running Daybook. The
 * test supplies only what a person does by hand: registering the app on the apps page, typing
 * the client ID, secret and code when asked, and allowing the app in a browser (here over HTTP,
 * as the OAuth tests do).
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { PAGE, decide, locationQuery, logIn, sessionCsrf, setCookie } from '../support/web';
import { ensureCommand, requireCommand } from '../support/commands';

const run = promisify(execFile);

let app: TestApp;
let workDir: string;
beforeAll(async () => {
  app = await startTestApp();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-quick-start-'));
});
afterAll(async () => {
  await app.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

/** The fenced shell blocks of the v2 introduction's "Quick start" section, in order. */
function quickStartBlocks(description: string): string[] {
  const start = description.indexOf('## Quick start\n');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = description.indexOf('\n## ', start + 1);
  const section = description.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

/** The variables a block asks the person to type (`read -r [-s] NAME`), in order. */
function readsOf(block: string): string[] {
  return [...block.matchAll(/\bread -r (?:-s )?([A-Z_]+)/g)].map((match) => match[1]);
}

type Env = Record<string, string>;

/**
 * Runs one block in bash as a person's shell would, with the variables earlier blocks set
 * (`set -a` exports every assignment; the shell's environment is saved after the block) and
 * `input` typed at its prompts. A failing command fails the block.
 */
async function runBlock(block: string, env: Env, input: string): Promise<{ stdout: string; env: Env }> {
  const saved = path.join(workDir, 'env');
  const script = `set -a\nset -eo pipefail\n${block}\nenv -0 > '${saved}'\n`;
  const running = run('bash', ['-c', script], { env, cwd: workDir });
  running.child.stdin!.end(input);
  const { stdout } = await running;
  const after = Object.fromEntries(
    fs
      .readFileSync(saved, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { stdout, env: after };
}

/** The person registers an app on the apps page, as step 1 says; returns what the page shows. */
async function registerOnAppsPage(session: string): Promise<{ clientId: string; secret: string }> {
  const csrf = await sessionCsrf(app, session, '/settings/apps');
  const res = await app.post('/settings/apps', {
    ...PAGE,
    session,
    form: [
      ['csrf_token', csrf],
      ['name', 'My first Daybook app'],
      ['redirect_uris', 'http://localhost:8000/callback'],
      ['client_type', 'confidential'],
      ['scopes', 'activity_read'],
      ['scopes', 'activity_write'],
    ],
  });
  expect(res.status).toBe(200);
  const clientId = /<code class="client-id">([^<]+)</.exec(res.text)?.[1];
  const secret = /data-secret="Client secret">([^<]+)</.exec(res.text)?.[1];
  if (!clientId || !secret) throw new Error(`the apps page showed no client ID or secret: ${res.text.slice(0, 500)}`);
  return { clientId, secret };
}

const base64url = (data: Buffer) => data.toString('base64url');

test('the quick start, run as written, goes from a registered app to a value written and read back, and a refresh', async () => {
  requireCommand('curl', 'the quick start is curl commands');
  ensureCommand('openssl', "the quick start's PKCE step uses openssl");

  // The person: an account, logged in in their browser, and an app registered on the apps page.
  const { user, password } = await makeUser(app);
  const session = setCookie(await logIn(app, user.username, password), 'daybook_session')!;
  const registered = await registerOnAppsPage(session);

  const served = await app.get('/openapi/v2.json', { unvalidated: true });
  const blocks = quickStartBlocks(served.body.info.description);
  // A command's JSON answer: its last line, after any prompt printed before it (input is not echoed here).
  const json = (stdout: string) => {
    const last = stdout.trim().split('\n').pop()!;
    return JSON.parse(last.slice(last.indexOf('{')));
  };
  let authorizeUrl: URL | undefined;
  let code: string | undefined;

  /** What the person types at a prompt. Consenting happens when the code is asked for. */
  async function typed(name: string, env: Env): Promise<string> {
    if (name === 'CLIENT_ID') return registered.clientId;
    if (name === 'CLIENT_SECRET') return registered.secret;
    if (name === 'CODE') {
      // The browser opens the printed address, the person allows, the browser lands on the redirect URI.
      expect(authorizeUrl).toBeDefined();
      const params = Object.fromEntries(authorizeUrl!.searchParams);
      const decided = await decide(app, session, params, 'allow');
      expect(decided.status).toBe(303);
      const back = locationQuery(decided);
      expect(back.get('state')).toBe(env.STATE);
      code = back.get('code')!;
      return code;
    }
    throw new Error(`the quick start asks for ${name}, which a person would not know`);
  }

  // One check per block, in order: what a person would look at in each command's output.
  const checks: Array<(stdout: string, env: Env, before: Env) => Promise<void> | void> = [
    // 1. Register an app: the shell knows the instance, the app and the redirect URI.
    (_, env) => {
      expect([env.DAYBOOK, env.CLIENT_ID, env.CLIENT_SECRET, env.REDIRECT_URI]).toEqual([
        app.baseUrl,
        registered.clientId,
        registered.secret,
        'http://localhost:8000/callback',
      ]);
    },
    // 2. The authorisation address, with an S256 challenge of the verifier.
    (stdout, env) => {
      authorizeUrl = new URL(stdout.trim());
      expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${app.baseUrl}/oauth2/authorize`);
      expect(env.CODE_VERIFIER).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
      expect(authorizeUrl.searchParams.get('code_challenge')).toBe(base64url(crypto.createHash('sha256').update(env.CODE_VERIFIER).digest()));
      expect(authorizeUrl.searchParams.get('client_id')).toBe(registered.clientId);
    },
    // 3. The code exchanged for tokens, kept in the shell.
    (stdout, env) => {
      const tokens = json(stdout);
      expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'activity_read activity_write', expires_in: 31536000 });
      expect([env.ACCESS_TOKEN, env.REFRESH_TOKEN]).toEqual([tokens.access_token, tokens.refresh_token]);
    },
    // 4. with-values answers a page.
    (stdout) => {
      expect(json(stdout)).toMatchObject({ count: expect.any(Number), results: expect.any(Array) });
    },
    // 5. steps acquired.
    (stdout) => {
      expect(json(stdout)).toMatchObject({ success: [{ name: 'steps', active: true }], failed: [] });
    },
    // 6. A value written...
    (stdout) => {
      expect(json(stdout)).toMatchObject({ success: [expect.objectContaining({ name: 'steps' })], failed: [] });
    },
    // ...and read back.
    (stdout, env) => {
      expect(json(stdout).results[0]).toMatchObject({ date: env.DAY, value: 8412 });
    },
    // 7. Refreshed: a new pair in the shell; the old access token no longer works.
    async (stdout, env, before) => {
      const tokens = json(stdout);
      expect(env.ACCESS_TOKEN).toBe(tokens.access_token);
      expect(env.ACCESS_TOKEN).not.toBe(before.ACCESS_TOKEN);
      expect(env.REFRESH_TOKEN).not.toBe(before.REFRESH_TOKEN);
      expect((await app.get('/api/2/accounts/profile/', { bearer: before.ACCESS_TOKEN })).status).toBe(401);
    },
    // The new token reads the profile.
    (stdout) => {
      expect(json(stdout)).toMatchObject({ username: user.username });
    },
  ];
  expect(blocks).toHaveLength(checks.length);

  let env: Env = { PATH: process.env.PATH!, HOME: workDir, LANG: 'C.UTF-8' };
  for (const [i, block] of blocks.entries()) {
    let input = '';
    for (const name of readsOf(block)) input += `${await typed(name, env)}\n`;
    const result = await runBlock(block, env, input).catch((error) => {
      throw new Error(`quick start block ${i + 1} failed:\n${block}\n${error.stderr ?? error.message}`);
    });
    await checks[i](result.stdout, result.env, env);
    env = result.env;
  }
  expect(code).toBeDefined();
  // A dozen bash, curl and openssl processes in a row: more than the default 30 s on a busy machine.
}, 120_000);

test('the apps page, and the page of a newly registered app, link to the quick start', async () => {
  const { user, password } = await makeUser(app);
  const session = setCookie(await logIn(app, user.username, password), 'daybook_session')!;
  const link = 'href="/docs/v2/#section/quick-start"';
  expect((await app.get('/settings/apps', { ...PAGE, session })).text).toContain(link);
  const csrf = await sessionCsrf(app, session, '/settings/apps');
  const registered = await app.post('/settings/apps', {
    ...PAGE,
    session,
    form: [
      ['csrf_token', csrf],
      ['name', 'Another app'],
      ['redirect_uris', 'http://localhost:8000/callback'],
      ['scopes', 'activity_read'],
    ],
  });
  expect([registered.status, registered.text]).toEqual([200, expect.stringContaining('Another app is registered')]);
  expect(registered.text).toContain(link);
});
