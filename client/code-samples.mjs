/**
 * The "TypeScript client" code sample of each operation of the v2, v1 and OAuth documents: the
 * import of @daybook/client, the client the operation's authentication needs, the call with the
 * example's values, and the handling of its result. The docs build calls `typedClientSample` for
 * every operation and writes the answer into the bundled documents' `x-codeSamples`; the output is
 * a pure function of the context (and of the bundled documents' parameter types), so the build is
 * reproducible. test/client/code-samples.test.ts compiles every sample against the client's types.
 *
 * `context` (names fixed in the issue's interfaces): { api: 'v2' | 'v1' | 'oauth', operationId,
 * method, path, pathParams, query, body, contentType, auth: 'bearer' | 'token' | 'basic' | 'none',
 * baseUrl? } (baseUrl defaults to the documents' example server).
 */
import { readFileSync } from 'node:fs';

const EXAMPLE_BASE_URL = 'https://daybook.example.org';

/** The environment variables the samples read credentials from (never a secret in a sample). */
const ENV = {
  accessToken: 'process.env.DAYBOOK_ACCESS_TOKEN!',
  simpleToken: 'process.env.DAYBOOK_TOKEN!',
  clientId: 'process.env.DAYBOOK_CLIENT_ID!',
  clientSecret: 'process.env.DAYBOOK_CLIENT_SECRET!',
  refreshToken: 'process.env.DAYBOOK_REFRESH_TOKEN!',
};

// ---- Rendering values as TypeScript literals (prettier's style: single quotes, trailing commas) ----

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const quote = (text) => `'${String(text).replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
const pad = (depth) => '  '.repeat(depth);

/** A JSON value as a TypeScript literal, on one line when it is short, else one entry a line. */
function literal(value, depth = 0) {
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? quote(value) : String(value);
  const isArray = Array.isArray(value);
  const entries = isArray
    ? value.map((item) => literal(item, depth + 1))
    : Object.entries(value).map(([k, v]) => `${IDENTIFIER.test(k) ? k : quote(k)}: ${literal(v, depth + 1)}`);
  if (entries.length === 0) return isArray ? '[]' : '{}';
  const [open, close] = isArray ? ['[', ']'] : ['{ ', ' }'];
  const inline = `${open}${entries.join(', ')}${close}`;
  if (inline.length + depth * 2 <= 72 && !inline.includes('\n')) return inline;
  return `${open.trim()}\n${entries.map((entry) => `${pad(depth + 1)}${entry},`).join('\n')}\n${pad(depth)}${close.trim()}`;
}

// ---- The documents' parameter types (a query value arrives as text; integers are sent as numbers) ----

const bundles = new Map();

/** The bundled document of `api` (generated/openapi/<api>.json), or undefined when it cannot be read. */
function bundleOf(api) {
  if (!bundles.has(api)) {
    try {
      bundles.set(api, JSON.parse(readFileSync(new URL(`../generated/openapi/${api}.json`, import.meta.url), 'utf8')));
    } catch {
      bundles.set(api, undefined);
    }
  }
  return bundles.get(api);
}

function resolve(document, node) {
  let current = node;
  while (current && current.$ref)
    current = current.$ref
      .split('/')
      .slice(1)
      .reduce((o, key) => o?.[key], document);
  return current;
}

/** The schema type of a query parameter of the operation, if the document describes it. */
function queryParameterType(context, name) {
  const document = context.document ?? bundleOf(context.api);
  const item = document?.paths?.[context.path];
  const parameters = [...(item?.parameters ?? []), ...(item?.[context.method.toLowerCase()]?.parameters ?? [])].map((p) => resolve(document, p));
  const parameter = parameters.find((p) => p?.in === 'query' && p.name === name);
  return resolve(document, parameter?.schema)?.type;
}

/** The query as the client takes it: integer parameters as numbers, the others as text. */
function typedQuery(context, query = context.query ?? {}) {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => {
      const type = queryParameterType(context, name);
      return [name, (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value];
    }),
  );
}

/** Call arguments, dropping trailing ones left at their default (undefined). */
function args(...values) {
  while (values.length > 0 && values[values.length - 1] === undefined) values.pop();
  return values.map((value) => (value === undefined ? 'undefined' : value)).join(', ');
}

const queryArg = (context, query) => {
  const typed = typedQuery(context, query);
  return Object.keys(typed).length === 0 ? undefined : literal(typed);
};

/** `{ successObjects: true }` from the `success_objects` flag of a batch write. */
function writeOptions(context) {
  const flag = context.query?.success_objects;
  return flag === undefined ? undefined : `{ successObjects: ${flag === 'true' || flag === '1'} }`;
}

const bodyArg = (context) => literal(context.body ?? []);

/** Whether the operation answers a paged list (`count`, `results`...), as its 200 response's schema says. */
function answersPagedList(context) {
  const document = context.document ?? bundleOf(context.api);
  const operation = document?.paths?.[context.path]?.[context.method.toLowerCase()];
  const response = resolve(document, operation?.responses?.['200']);
  const schema = resolve(document, response?.content?.['application/json']?.schema);
  if (!schema) return /^list/.test(context.operationId);
  const parts = [schema, ...(schema.allOf ?? [])].map((part) => resolve(document, part));
  return parts.some((part) => part?.properties?.results !== undefined);
}

// ---- The call of each operation: [variable, call expression] ----

const V2 = {
  listAttributeTemplates: (c) => `daybook.templates(${args(queryArg(c))})`,
  listAttributes: (c) => `daybook.attributes(${args(queryArg(c))})`,
  listAttributesWithValues: (c) => `daybook.attributesWithValues(${args(queryArg(c))})`,
  listAttributeValues: (c) => `daybook.values(${queryArg(c) ?? "{ attribute: 'steps' }"})`,
  listOwnedAttributes: (c) => `daybook.owned(${args(queryArg(c))})`,
  updateAttributeValues: (c) => `daybook.update(${bodyArg(c)})`,
  incrementAttributeValues: (c) => `daybook.increment(${bodyArg(c)})`,
  acquireAttributes: (c) => `daybook.acquire(${args(bodyArg(c), writeOptions(c))})`,
  releaseAttributes: (c) => `daybook.release(${bodyArg(c)})`,
  createAttributes: (c) => `daybook.create(${args(bodyArg(c), writeOptions(c))})`,
  listCorrelations: (c) => `daybook.correlations(${args(queryArg(c))})`,
  getCorrelationCombo: (c) => `daybook.correlationCombo(${queryArg(c) ?? "{ attribute: 'steps', attribute2: 'sleep' }"})`,
  listAverages: (c) => `daybook.averages(${args(queryArg(c))})`,
  listInsights: (c) => `daybook.insights(${args(queryArg(c))})`,
  getProfile: () => `daybook.profile()`,
  createSimpleToken: (c) => `daybook.simpleToken(${literal(c.body ?? {})})`,
  listWebhooks: (c) => `webhooks.list(${args(queryArg(c))})`,
  createWebhook: (c) => `webhooks.create(${literal(c.body ?? {})})`,
  getWebhook: (c) => `webhooks.get(${quote(c.pathParams.id)})`,
  updateWebhook: (c) => `webhooks.update(${quote(c.pathParams.id)}, ${literal(c.body ?? {})})`,
  deleteWebhook: (c) => `webhooks.delete(${quote(c.pathParams.id)})`,
  rotateWebhookSecret: (c) => `webhooks.rotateSecret(${quote(c.pathParams.id)})`,
  listWebhookDeliveries: (c) => `webhooks.deliveries(${args(quote(c.pathParams.id), queryArg(c))})`,
  resendWebhookDelivery: (c) => `webhooks.resend(${quote(c.pathParams.id)}, ${quote(c.pathParams.message_id)})`,
  sendWebhookTestEvent: (c) => `webhooks.sendTestEvent(${quote(c.pathParams.id)})`,
};

/** A v1 path's username: `$self` is the client's default and is left out. */
const user = (c) => (c.pathParams.username === undefined || c.pathParams.username === '$self' ? undefined : quote(c.pathParams.username));
const V1 = {
  getUserProfile: (c) => `v1.profile(${args(user(c))})`,
  getUserToday: (c) => `v1.today(${args(user(c))})`,
  listUserAttributes: (c) => `v1.attributes(${args(queryArg(c) ?? (user(c) && '{}'), user(c))})`,
  listUserAttributeValues: (c) => `v1.attributeValues(${args(quote(c.pathParams.attribute), queryArg(c) ?? (user(c) && '{}'), user(c))})`,
  listUserInsights: (c) => `v1.insights(${args(queryArg(c) ?? (user(c) && '{}'), user(c))})`,
  listUserAttributeInsights: (c) => `v1.attributeInsights(${args(quote(c.pathParams.attribute), queryArg(c) ?? (user(c) && '{}'), user(c))})`,
  listUserAverages: (c) => `v1.averages(${args(user(c))})`,
  listUserAttributeAverages: (c) => `v1.attributeAverages(${args(quote(c.pathParams.attribute), queryArg(c) ?? (user(c) && '{}'), user(c))})`,
  createSimpleToken: (c) => `v1.simpleToken(${literal(c.body ?? {})})`,
};

// ---- Creating the client the operation's authentication needs ----

function v2Client(context) {
  if (V2[context.operationId] && context.path.startsWith('/api/2/webhooks/')) {
    return {
      names: ['createWebhooksClient'],
      setup: `// Webhook management is about your app: it authenticates with the app's client credentials.\nconst webhooks = createWebhooksClient({\n  baseUrl: BASE_URL,\n  clientId: ${ENV.clientId},\n  clientSecret: ${ENV.clientSecret},\n});`,
    };
  }
  const credentials =
    context.auth === 'none'
      ? ''
      : context.auth === 'token'
        ? `\n  credentials: { simpleToken: ${ENV.simpleToken} },`
        : `\n  credentials: { accessToken: ${ENV.accessToken} },`;
  return { names: ['createDaybookClient'], setup: `const daybook = createDaybookClient({\n  baseUrl: BASE_URL,${credentials}\n});` };
}

function v1Client(context) {
  const auth =
    context.auth === 'none' ? '' : context.auth === 'bearer' ? `\n  auth: { bearer: ${ENV.accessToken} },` : `\n  auth: { simpleToken: ${ENV.simpleToken} },`;
  return { names: ['createV1Client'], setup: `const v1 = createV1Client({\n  baseUrl: BASE_URL,${auth}\n});` };
}

/** The OAuth client: a confidential app (Basic, or its secret in the form) or a public one (PKCE only). */
function oauthClient(context) {
  const clientId = context.body?.client_id ?? context.query?.client_id;
  const secret = context.auth === 'basic' || context.body?.client_secret !== undefined ? `\n  clientSecret: ${ENV.clientSecret},` : '';
  return {
    names: ['createOAuthClient'],
    setup: `const oauth = createOAuthClient({\n  baseUrl: BASE_URL,\n  clientId: ${clientId ? quote(clientId) : ENV.clientId},${secret}\n});`,
  };
}

// ---- Handling the result ----

const handled = (call, success) =>
  `const result = await ${call};\nif (result.ok) {\n  ${success}\n} else {\n  // The error is a value: the status, the documented error body and the rate-limit headers.\n  console.error(result.status, result.error);\n}`;

function successLine(context) {
  const id = context.operationId;
  if (context.method === 'DELETE') return `console.log('Deleted', result.status);`;
  if (/^list/.test(id))
    return answersPagedList(context) ? `console.log(result.data.count, result.data.results);` : `console.log(result.data.length, result.data);`;
  if (/^(update|increment|acquire|release|create)Attribute/.test(id)) return `console.log(result.data.success, result.data.failed);`;
  return `console.log(result.data);`;
}

function authorizeSample(context) {
  const q = context.query && Object.keys(context.query).length > 0 ? context.query : (context.body ?? {});
  const scopes = String(q.scope ?? 'activity_read').split(' ');
  const note =
    context.operationId === 'submitAuthorizationConsent'
      ? "// The consent form is the person's: Daybook shows it at the authorisation URL and their browser\n// submits it. Your app builds the URL and then handles the redirect back.\n"
      : '';
  return [
    `${note}const pkce = createPkce(); // keep pkce.codeVerifier (e.g. in the session) for the code exchange`,
    `const state = createState(); // check it when the person comes back`,
    `const url = oauth.authorizeUrl({\n  redirectUri: ${quote(q.redirect_uri ?? 'https://stepcounter.example.com/oauth/callback')},\n  scopes: ${literal(scopes, 1)},\n  state,\n  codeChallenge: pkce.codeChallenge,\n});`,
    `// Send the person's browser to url.\nconsole.log(url);`,
  ].join('\n');
}

function oauthCall(context) {
  const body = context.body ?? {};
  switch (context.operationId) {
    case 'createAccessToken':
      if (body.grant_type === 'refresh_token') {
        const scope = body.scope === undefined ? '' : `, { scope: ${quote(body.scope)} }`;
        return handled(`oauth.refresh(${quote(body.refresh_token ?? '')}${scope})`, 'console.log(result.data.access_token, result.data.refresh_token);');
      }
      return handled(
        // A public app sends the PKCE verifier it kept from createPkce(); a confidential one may too.
        `oauth.exchangeCode({\n  code: ${quote(body.code ?? '')},\n  redirectUri: ${quote(body.redirect_uri ?? '')},${body.code_verifier ? `\n  codeVerifier: ${quote(body.code_verifier)},` : ''}\n})`,
        'console.log(result.data.access_token, result.data.refresh_token);',
      );
    case 'revokeToken': {
      const hint = body.token_type_hint ? `, { tokenTypeHint: ${quote(body.token_type_hint)} }` : '';
      return handled(`oauth.revoke(${quote(body.token ?? '')}${hint})`, "console.log('Revoked');");
    }
    case 'getAuthorizationServerMetadata':
      return handled('oauth.discover()', 'console.log(result.data.token_endpoint, result.data.scopes_supported);');
    default:
      return authorizeSample(context);
  }
}

/** The sample's import line, with only the names it uses. */
const importLine = (names) => `import { ${[...new Set(names)].sort().join(', ')} } from '@daybook/client';`;

/**
 * The TypeScript client sample of one operation, or undefined for an operation the client does
 * not know (an operation added to a document before the client has a method for it).
 */
export function typedClientSample(context) {
  const baseUrl = `const BASE_URL = ${quote(context.baseUrl ?? EXAMPLE_BASE_URL)};`;
  let client;
  let body;
  if (context.api === 'v2' && V2[context.operationId]) {
    client = v2Client(context);
    body = handled(V2[context.operationId](context), successLine(context));
  } else if (context.api === 'v1' && V1[context.operationId]) {
    client = v1Client(context);
    body = handled(V1[context.operationId](context), successLine(context));
  } else if (
    context.api === 'oauth' &&
    ['showAuthorizationPage', 'submitAuthorizationConsent', 'createAccessToken', 'revokeToken', 'getAuthorizationServerMetadata'].includes(context.operationId)
  ) {
    client = oauthClient(context);
    const authorize = ['showAuthorizationPage', 'submitAuthorizationConsent'].includes(context.operationId);
    if (authorize) client.names.push('createPkce', 'createState');
    body = oauthCall(context);
  } else {
    return undefined;
  }
  return `${importLine(client.names)}\n\n${baseUrl}\n${client.setup}\n\n${body}\n`;
}
