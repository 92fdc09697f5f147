/**
 * Finding 5: pages show only their own words. A link's query once printed any text as a notice on
 * a trusted page (`/data?saved=<text>` as "Saved <text>."); notices are now codes that map to
 * fixed sentences, naming an attribute only when it is one of the person's own.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE } from '../support/web';

let app: TestApp;
let session: string;
beforeAll(async () => {
  app = await startTestApp();
  const { user } = await makeUser(app);
  session = await makeSession(app, user);
  const { client } = await makeClient(app, user);
  const bearer = (await makeToken(app, user, client, ['mood_read', 'mood_write'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'mood' }] })).status).toBe(200);
});
afterAll(async () => {
  await app.close();
});

const PHISH = 'your account is suspended, call +1 555 0100 and read out your password';

test.each([
  `/data?saved=${encodeURIComponent(PHISH)}`,
  `/data?tracked=${encodeURIComponent(PHISH)}`,
  `/data?notice=${encodeURIComponent(PHISH)}`,
  `/data?notice=saved&attribute=${encodeURIComponent(PHISH)}`,
  `/data?notice=tracking&attribute=${encodeURIComponent(PHISH)}`,
  `/settings/attributes?saved=${encodeURIComponent(PHISH)}`,
  `/settings/attributes?notice=saved&attribute=${encodeURIComponent(PHISH)}`,
])('%s shows none of the text of the link', async (path) => {
  const res = await app.get(path, { ...PAGE, session });
  expect(res.status).toBe(200);
  expect(res.text).not.toContain('suspended');
});

test("a notice code shows its fixed sentence, naming the person's own attribute by its label", async () => {
  const data = await app.get('/data?notice=saved&attribute=mood', { ...PAGE, session });
  expect(data.text).toContain('<p class="notice" role="status">Saved Mood.</p>');
  const unknown = await app.get('/data?notice=saved&attribute=nothing_of_theirs', { ...PAGE, session });
  expect(unknown.text).toContain('<p class="notice" role="status">Saved.</p>');
  const settings = await app.get('/settings/attributes?notice=saved&attribute=mood', { ...PAGE, session });
  expect(settings.text).toContain('<p class="notice" role="status">Saved Mood.</p>');
});
