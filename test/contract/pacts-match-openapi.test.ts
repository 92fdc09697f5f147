/**
 * The pacts and the OpenAPI documents agree: every interaction of every committed pact is a
 * request the documents allow, answered the way they describe (see openapi-agreement.ts). A
 * consumer cannot rely on something the documents do not promise, and the documents cannot drift
 * from what consumers rely on, without this failing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACTS_DIR } from '../../contracts/support/pact';
import { disagreements, type PactInteraction } from './openapi-agreement';

const interactions: Array<[string, string, PactInteraction]> = fs
  .readdirSync(PACTS_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .flatMap((file) => {
    const pact = JSON.parse(fs.readFileSync(path.join(PACTS_DIR, file), 'utf8')) as { consumer: { name: string }; interactions: PactInteraction[] };
    return pact.interactions.map((interaction) => [pact.consumer.name, interaction.description, interaction] as [string, string, PactInteraction]);
  });

test('there are pacts to check', () => {
  expect(interactions.length).toBeGreaterThan(20);
});

test.each(interactions)('%s: "%s" is allowed by the OpenAPI documents', async (_consumer, _description, interaction) => {
  const problems = await disagreements(interaction);
  if (problems.length > 0) throw new Error(`This interaction is not allowed by the OpenAPI documents:\n  - ${problems.join('\n  - ')}`);
});

describe('the agreement check itself', () => {
  const profile: PactInteraction = {
    description: 'a request for the profile',
    request: { method: 'GET', path: '/api/2/accounts/profile/', headers: { Authorization: 'Bearer token' } },
    response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: { username: 'alice' } },
  };

  test('names what a response body lacks or adds', async () => {
    const problems = await disagreements({ ...profile, response: { ...profile.response, body: { username: 'alice', nickname: 'al' } } });
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/must have required property 'first_name'/), expect.stringMatching(/additional properties \(nickname\)/)]),
    );
  });

  test('rejects an undocumented path, status, header, query parameter value and credentials', async () => {
    expect(await disagreements({ ...profile, request: { ...profile.request, path: '/api/2/accounts/profiles/' } })).toEqual([
      'the v2 document has no operation GET /api/2/accounts/profiles/',
    ]);
    expect(await disagreements({ ...profile, response: { status: 418, body: {} } })).toEqual(['response: status 418 is not documented for getProfile']);
    const valuesRequest = {
      method: 'GET',
      path: '/api/2/attributes/values/',
      query: { attribute: ['steps'], limit: ['many'] },
      headers: { Authorization: 'Token abc' },
    };
    const valuesProblems = await disagreements({ description: 'values', request: valuesRequest, response: { status: 200, headers: { 'X-Made-Up': '1' } } });
    expect(valuesProblems).toEqual(
      expect.arrayContaining([expect.stringMatching(/limit must be integer/), expect.stringMatching(/header x-made-up is not documented/)]),
    );
    const write = {
      method: 'POST',
      path: '/api/2/attributes/release/',
      headers: { Authorization: 'Token abc', 'Content-Type': 'application/json' },
      body: [{ name: 'steps' }],
    };
    expect(
      await disagreements({
        description: 'release',
        request: write,
        response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: { success: [], failed: [] } },
      }),
    ).toEqual(['request: the request authenticates with SimpleToken, but releaseAttributes accepts OAuth2']);
  });
});
