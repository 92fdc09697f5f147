/** Rule 4: the attributes settings page (owner, hand over to another able service, deactivate, private). */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE, registerApp, sessionCsrf } from '../support/web';
import { revokeClientTokensOfUser } from '../../src/domain/apps-and-grants/tokens';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** A person with `sleep` owned by Sleep Tracker, which Sleep Band and Old Band (disconnected) have also handled. */
async function setUp() {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const { user: developer } = await makeUser(app);
  const tracker = (await registerApp(app, developer, { name: 'Sleep Tracker' })).client;
  const band = (await registerApp(app, developer, { name: 'Sleep Band' })).client;
  const old = (await registerApp(app, developer, { name: 'Old Band' })).client;
  const stranger = (await registerApp(app, developer, { name: 'Never Handled' })).client;
  for (const client of [tracker, band, old, stranger]) await makeToken(app, user, client, ['sleep_read', 'sleep_write']);
  await revokeClientTokensOfUser(app.db, user.id, old.id, new Date());
  const [attribute] = await app
    .db('attributes')
    .insert({
      user_id: user.id,
      name: 'sleep',
      label: 'Sleep',
      template_name: 'sleep',
      group_name: 'sleep',
      value_type: 3,
      priority: 1,
      owner_client_pk: tracker.id,
    })
    .returning('*');
  await app.db('attribute_services').insert([tracker, band, old].map((client) => ({ user_id: user.id, attribute_id: attribute.id, client_pk: client.id })));
  return { user, session, tracker, band, old, stranger, attribute };
}

async function save(session: string, name: string, form: Record<string, string>) {
  const csrf = await sessionCsrf(app, session, '/settings/attributes');
  return app.post(`/settings/attributes/${name}`, { ...PAGE, session, form: { csrf_token: csrf, ...form } });
}

describe('attributes settings page', () => {
  test('lists each attribute with its owner, and offers only connected services that have handled it', async () => {
    const { session, band, old, stranger } = await setUp();
    const page = await app.get('/settings/attributes', { ...PAGE, session });
    expect(page.status).toBe(200);
    const row = /<tr id="attribute-sleep">[\s\S]*?<\/tr>/.exec(page.text)![0];
    expect(row).toContain('<td>Sleep Tracker</td>');
    expect(row).toContain(`<option value="${band.client_id}">Hand to Sleep Band</option>`);
    expect(row).not.toContain(old.client_id);
    expect(row).not.toContain(stranger.client_id);
    expect(row).toContain('Deactivate');
  });

  test('the owner can be changed to another service able to handle the attribute', async () => {
    const { user, session, band } = await setUp();
    const res = await save(session, 'sleep', { owner: band.client_id });
    expect(res.status).toBe(303);
    const row = await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first();
    expect(row.owner_client_pk).toBe(band.id);
    expect(row.active).toBe(true);
  });

  test('a service that never handled the attribute, or is no longer connected, cannot become its owner (400)', async () => {
    const { user, session, old, stranger, tracker } = await setUp();
    for (const client of [old, stranger]) {
      const res = await save(session, 'sleep', { owner: client.client_id });
      expect(res.status).toBe(400);
    }
    expect((await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first()).owner_client_pk).toBe(tracker.id);
  });

  test('deactivating asks first: the page says what it means, and nothing changes until it is confirmed', async () => {
    const { user, session, tracker } = await setUp();
    const asked = await save(session, 'sleep', { owner: '__deactivate__', private: '1' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<h1>Deactivate Sleep?</h1>');
    expect(asked.text).toContain('Sleep Tracker stops owning it');
    expect(asked.text).toContain('<a href="/settings/attributes#attribute-sleep">Keep it as it is</a>');
    expect(asked.text).toMatch(/<input type="hidden" name="confirm" value="1">/);
    expect(asked.text).toMatch(/<input type="hidden" name="private" value="1">/);
    expect(await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first()).toMatchObject({
      active: true,
      owner_client_pk: tracker.id,
      private: false,
    });
    // The page's own button: the same change, confirmed (with its own anti-forgery token).
    const confirmed = await app.post('/settings/attributes/sleep', {
      ...PAGE,
      session,
      form: { csrf_token: /name="csrf_token" value="([^"]+)"/.exec(asked.text)![1], owner: '__deactivate__', confirm: '1', private: '1' },
    });
    expect(confirmed.status).toBe(303);
    expect(await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first()).toMatchObject({
      active: false,
      owner_client_pk: null,
      private: true,
    });
  });

  test('the attribute can be deactivated: nobody owns it and it is inactive', async () => {
    const { user, session, band } = await setUp();
    await save(session, 'sleep', { owner: '__deactivate__', confirm: '1' });
    const row = await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first();
    expect(row).toMatchObject({ active: false, owner_client_pk: null });
    const page = await app.get('/settings/attributes', { ...PAGE, session });
    expect(page.text).toContain('Inactive');
    // and handed to an able service again, which makes it active
    await save(session, 'sleep', { owner: band.client_id });
    expect(await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first()).toMatchObject({ active: true, owner_client_pk: band.id });
  });

  test('the private flag (version 1) is set and cleared on the page', async () => {
    const { user, session } = await setUp();
    await save(session, 'sleep', { owner: '', private: '1' });
    expect((await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first()).private).toBe(true);
    await save(session, 'sleep', { owner: '' });
    expect((await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first()).private).toBe(false);
  });

  test("an attribute the person does not have is 404, and another person's attributes are untouched", async () => {
    const first = await setUp();
    const second = await setUp();
    expect((await save(first.session, 'no_such_attribute', { owner: '__deactivate__' })).status).toBe(404);
    expect((await save(first.session, 'no_such_attribute', { owner: '__deactivate__', confirm: '1' })).status).toBe(404);
    await save(first.session, 'sleep', { owner: '__deactivate__', confirm: '1' });
    expect((await app.db('attributes').where({ user_id: second.user.id, name: 'sleep' }).first()).active).toBe(true);
  });

  test('changes without the anti-forgery token are refused (403)', async () => {
    const { user, session } = await setUp();
    const res = await app.post('/settings/attributes/sleep', { ...PAGE, session, form: { owner: '__deactivate__' } });
    expect(res.status).toBe(403);
    expect((await app.db('attributes').where({ user_id: user.id, name: 'sleep' }).first()).active).toBe(true);
  });
});
