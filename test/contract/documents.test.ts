/**
 * The contract is complete: every endpoint of the spec is in the documents, every operation is
 * described as STYLE.md asks, and the generated types compile.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadBundle, type ApiName } from '../../src/http/backends';
import { PROJECT_ROOT } from '../../src/paths';

/** The interface specification's endpoint list (its "Endpoints" and "Authentication endpoints"; see docs/decisions.md). */
const SPEC_ENDPOINTS: Array<[ApiName, string, string]> = [
  ['v2', 'get', '/api/2/attributes/templates/'],
  ['v2', 'get', '/api/2/attributes/'],
  ['v2', 'get', '/api/2/attributes/with-values/'],
  ['v2', 'get', '/api/2/attributes/values/'],
  ['v2', 'get', '/api/2/attributes/owned/'],
  ['v2', 'post', '/api/2/attributes/update/'],
  ['v2', 'post', '/api/2/attributes/increment/'],
  ['v2', 'post', '/api/2/attributes/acquire/'],
  ['v2', 'post', '/api/2/attributes/release/'],
  ['v2', 'post', '/api/2/attributes/create/'],
  ['v2', 'get', '/api/2/correlations/'],
  ['v2', 'get', '/api/2/correlations/combo/'],
  ['v2', 'get', '/api/2/averages/'],
  ['v2', 'get', '/api/2/insights/'],
  ['v2', 'get', '/api/2/accounts/profile/'],
  ['v2', 'post', '/api/2/auth/simple-token/'],
  ['v1', 'get', '/api/1/users/{username}/profile/'],
  ['v1', 'get', '/api/1/users/{username}/today/'],
  ['v1', 'get', '/api/1/users/{username}/attributes/'],
  ['v1', 'get', '/api/1/users/{username}/attributes/{attribute}/'],
  ['v1', 'get', '/api/1/users/{username}/insights/'],
  ['v1', 'get', '/api/1/users/{username}/insights/attribute/{attribute}/'],
  ['v1', 'get', '/api/1/users/{username}/averages/'],
  ['v1', 'get', '/api/1/users/{username}/averages/attribute/{attribute}/'],
  ['v1', 'post', '/api/1/auth/simple-token/'],
  ['oauth', 'get', '/oauth2/authorize'],
  ['oauth', 'post', '/oauth2/authorize'],
  ['oauth', 'post', '/oauth2/access_token'],
];

/** Daybook's additions beyond the spec's list, each from a decision recorded in docs/ (webhooks: docs/webhooks.md; OAuth: docs/security.md). */
const EXTENSIONS: Array<[ApiName, string, string]> = [
  ['v2', 'get', '/api/2/webhooks/'],
  ['v2', 'post', '/api/2/webhooks/'],
  ['v2', 'get', '/api/2/webhooks/{id}/'],
  ['v2', 'post', '/api/2/webhooks/{id}/'],
  ['v2', 'delete', '/api/2/webhooks/{id}/'],
  ['v2', 'post', '/api/2/webhooks/{id}/rotate-secret/'],
  ['v2', 'get', '/api/2/webhooks/{id}/deliveries/'],
  ['v2', 'post', '/api/2/webhooks/{id}/deliveries/{message_id}/resend/'],
  ['v2', 'post', '/api/2/webhooks/{id}/test/'],
  // OAuth discovery and revocation (docs/security.md, "OAuth2"): RFC 8414 and RFC 7009.
  ['oauth', 'get', '/.well-known/oauth-authorization-server'],
  ['oauth', 'post', '/oauth2/revoke'],
];

type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  responses?: Record<string, unknown>;
  parameters?: Array<{ name: string; description?: string; schema?: unknown }>;
};

/** Follows a local `$ref` of the bundled document. */
function resolve<T>(document: unknown, value: T): T {
  const ref = (value as { $ref?: string }).$ref;
  if (!ref) return value;
  return ref
    .slice(2)
    .split('/')
    .reduce((node: any, key) => node[key], document) as T;
}

function operations(name: ApiName): Array<[string, string, Operation]> {
  const document = loadBundle(name) as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => [method, route, { ...op, parameters: (op.parameters ?? []).map((p) => resolve(document, p)) }] as [string, string, Operation]),
  );
}

test.each(SPEC_ENDPOINTS)('%s document has %s %s', (name, method, route) => {
  const found = operations(name).some(([m, r]) => m === method && r === route);
  expect(found).toBe(true);
});

test.each(['v2', 'v1', 'oauth'] as ApiName[])('the %s document has nothing the spec list lacks', (name) => {
  const listed = [...SPEC_ENDPOINTS, ...EXTENSIONS].filter(([api]) => api === name).map(([, m, r]) => `${m} ${r}`);
  expect(
    operations(name)
      .map(([m, r]) => `${m} ${r}`)
      .sort(),
  ).toEqual(listed.sort());
});

test.each(['v2', 'v1', 'oauth'] as ApiName[])('every %s operation has an operationId, one tag, a summary, a description and documented errors', (name) => {
  for (const [method, route, op] of operations(name)) {
    const where = `${method} ${route}`;
    expect([where, op.operationId]).toEqual([where, expect.stringMatching(/^[a-z][A-Za-z]+$/)]);
    expect([where, op.tags?.length]).toEqual([where, 1]);
    expect([where, op.summary]).toEqual([where, expect.stringMatching(/^[A-Z]/)]);
    expect([where, (op.description ?? '').length > 20]).toEqual([where, true]);
    const statuses = Object.keys(op.responses ?? {});
    expect([where, statuses.some((s) => s.startsWith('2') || s.startsWith('3'))]).toEqual([where, true]);
    expect([where, statuses.some((s) => s.startsWith('4'))]).toEqual([where, true]);
    for (const parameter of op.parameters ?? []) expect([where, parameter.name, Boolean(parameter.description)]).toEqual([where, parameter.name, true]);
  }
});

test('the batch limits and per-page limits the spec gives are in the v2 document', () => {
  const document = loadBundle('v2') as {
    paths: Record<
      string,
      Record<
        string,
        { requestBody?: { content: Record<string, { schema: { maxItems?: number } }> }; parameters?: Array<{ name: string; schema: { maximum?: number } }> }
      >
    >;
  };
  for (const route of ['update', 'increment', 'acquire', 'release', 'create']) {
    expect(document.paths[`/api/2/attributes/${route}/`].post.requestBody!.content['application/json'].schema.maxItems).toBe(35);
  }
  const days = document.paths['/api/2/attributes/with-values/'].get.parameters!.find((p) => p.name === 'days')!;
  expect(days.schema.maximum).toBe(31);
});

test('the generated types compile with tsc --noEmit', () => {
  const files = ['v2', 'v1', 'oauth'].map((name) => path.join(PROJECT_ROOT, 'generated', 'types', `${name}.ts`));
  expect(() =>
    execFileSync(
      process.execPath,
      [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', ...files],
      { stdio: 'pipe' },
    ),
  ).not.toThrow();
});
