/**
 * Consumer contract of an OAuth2 client at the token endpoint: it exchanges the code the person's
 * consent brought back for tokens, refreshes them, and reads the RFC 6749 error body of a code
 * the endpoint does not accept. Requests are form bodies, as RFC 6749 asks.
 */
import { createOAuthClient, isOAuthError, type OAuthClient } from '../client/src';
import { consumerPact } from './support/pact';
import { M } from './support/matchers';
import { REDIRECT_URI, STATES } from './support/states';

const pact = consumerPact('daybook-oauth-client');
const SCOPE = 'activity_read sleep_read';
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
const json = { 'Content-Type': 'application/json' };
// The verification swaps these for the credentials of the client its provider state registered.
const CLIENT_ID = 'example-client-id';
const CLIENT_SECRET = 'example-client-secret';
const clientCredentials = { client_id: M.string(CLIENT_ID), client_secret: M.string(CLIENT_SECRET) };

const client = (url: string): OAuthClient => createOAuthClient({ baseUrl: url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });

const tokenResponse = {
  access_token: M.string('new-access-token'),
  refresh_token: M.string('new-refresh-token'),
  token_type: 'Bearer',
  scope: M.string(SCOPE),
  expires_in: M.integer(31536000),
};

describe('an OAuth2 client', () => {
  test('exchanges an authorisation code for tokens', async () => {
    pact
      .given(STATES.person)
      .given(STATES.code, { scope: SCOPE })
      .uponReceiving('an authorisation code exchange')
      .withRequest({
        method: 'POST',
        path: '/oauth2/access_token',
        headers: form,
        body: { grant_type: 'authorization_code', code: M.string('example-authorisation-code'), redirect_uri: REDIRECT_URI, ...clientCredentials },
      })
      .willRespondWith({ status: 200, headers: { ...json, 'Cache-Control': 'no-store' }, body: tokenResponse });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).exchangeCode({ code: 'example-authorisation-code', redirectUri: REDIRECT_URI });
      expect(result.ok && result.data.token_type).toBe('Bearer');
    });
  });

  test('refreshes its tokens', async () => {
    pact
      .given(STATES.person)
      .given(STATES.refresh, { scope: SCOPE })
      .uponReceiving('a refresh token grant')
      .withRequest({
        method: 'POST',
        path: '/oauth2/access_token',
        headers: form,
        body: { grant_type: 'refresh_token', refresh_token: M.string('example-refresh-token'), ...clientCredentials },
      })
      .willRespondWith({ status: 200, headers: { ...json, 'Cache-Control': 'no-store' }, body: tokenResponse });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).refresh('example-refresh-token');
      expect(result.ok && result.data.refresh_token).toBe('new-refresh-token');
    });
  });

  test('reads the error body of a code the endpoint does not accept', async () => {
    pact
      .given(STATES.person)
      .given(STATES.registered)
      .uponReceiving('an exchange of a code that was never issued')
      .withRequest({
        method: 'POST',
        path: '/oauth2/access_token',
        headers: form,
        body: { grant_type: 'authorization_code', code: 'a-code-that-was-never-issued', redirect_uri: REDIRECT_URI, ...clientCredentials },
      })
      .willRespondWith({
        status: 400,
        headers: json,
        body: { error: 'invalid_grant', error_description: M.string('The authorisation code is invalid, expired or already used.') },
      });
    await pact.executeTest(async (server) => {
      const result = await client(server.url).exchangeCode({ code: 'a-code-that-was-never-issued', redirectUri: REDIRECT_URI });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.status).toBe(400);
        expect(isOAuthError(result.error) && result.error.error).toBe('invalid_grant');
      }
    });
  });
});
