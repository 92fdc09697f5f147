/**
 * Every operation of every document declares when its credentials are checked
 * (src/http/credential-checks.ts), and the service refuses to start when a document and the
 * declarations differ.
 */
import { loadBundle, type ApiName } from '../../src/http/documents';
import { checkCredentialModes, credentialCheckOf, CREDENTIAL_CHECKS } from '../../src/http/credential-checks';
import { createBackend, type HandlerMap } from '../../src/http/backends';

function operationIds(api: ApiName): string[] {
  const ids: string[] = [];
  for (const item of Object.values(loadBundle(api).paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      const id = (operation as { operationId?: string }).operationId;
      if (id) ids.push(id);
    }
  }
  return ids;
}

test.each(['v2', 'v1', 'oauth'] as ApiName[])('every operation of the %s document has a mode, and every mode an operation', (api) => {
  expect(Object.keys(CREDENTIAL_CHECKS[api]).sort()).toEqual(operationIds(api).sort());
  expect(() => checkCredentialModes(api, operationIds(api))).not.toThrow();
});

test('a document operation without a mode, or a mode for no operation, refuses the start and names it', () => {
  expect(() => checkCredentialModes('v2', [...operationIds('v2'), 'listEverything'])).toThrow(/operations without a mode: listEverything/);
  expect(() => checkCredentialModes('v1', operationIds('v1').slice(1))).toThrow(/modes for no operation: getUserProfile/);
});

test('building a backend checks its modes (the v1 document with a handler for every operation starts)', async () => {
  const handlers: HandlerMap = Object.fromEntries(operationIds('v1').map((id) => [id, () => undefined]));
  await expect(createBackend('v1', handlers)).resolves.toMatchObject({ name: 'v1' });
});

test('only version 2 reads, value writes, acquire and create check with their first statement; an unknown operation is checked before', () => {
  const firstStatement = Object.entries(CREDENTIAL_CHECKS)
    .flatMap(([api, modes]) => Object.entries(modes).map(([id, mode]) => [`${api}:${id}`, mode]))
    .filter(([, mode]) => mode === 'first-statement')
    .map(([id]) => id)
    .sort();
  expect(firstStatement).toEqual(
    [
      'v2:acquireAttributes',
      'v2:createAttributes',
      'v2:getProfile',
      'v2:incrementAttributeValues',
      'v2:listAttributeValues',
      'v2:listAttributes',
      'v2:listAttributesWithValues',
      'v2:listCorrelations',
      'v2:updateAttributeValues',
    ].sort(),
  );
  expect(credentialCheckOf('v2', 'constructor')).toBe('before');
  expect(credentialCheckOf('v2', undefined)).toBe('before');
});
