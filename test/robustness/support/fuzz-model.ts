/**
 * Requests for the property-based input suite, built from the OpenAPI documents. For each operation
 * of v2, v1 and OAuth: a valid request whose shape comes from the document (openapi-sampler's
 * sample of every parameter and body schema, with names and values a real person's data makes
 * valid laid over it), then zero to three mutations from a catalogue of the ways clients get
 * requests wrong: wrong types, missing, extra and repeated fields and parameters, out-of-range
 * numbers, impossible dates, huge, empty, unicode and control-character strings, deep nesting,
 * wrong or missing content types, malformed JSON and form encoding, bodies over the size limit,
 * 36-item batches and good items mixed with bad ones.
 *
 * Mutations are plain data (so fast-check prints a failing case readably) applied by `applyMutation`.
 */
import fc from 'fast-check';
import { sample } from 'openapi-sampler';
import { loadBundle, type ApiName } from '../../../src/http/backends';
import { GROUP_NAMES } from '../../../src/db/catalogue-groups';
import { BODY_LIMIT_BYTES } from '../../../src/http/body';
import type { RawRequest } from './raw-http';

/* ------------------------------------------------------------------------------------------------
 * Operations, from the documents
 * --------------------------------------------------------------------------------------------- */

type Schema = Record<string, unknown>;

export interface ParamSpec {
  name: string;
  required: boolean;
  schema: Schema;
  /** openapi-sampler's value for the schema (its example, or one it makes up). */
  sampled: unknown;
}

export interface OperationSpec {
  api: ApiName;
  operationId: string;
  method: string;
  path: string;
  pathParams: ParamSpec[];
  queryParams: ParamSpec[];
  /** Media types the operation accepts, with the sampled body. */
  body?: { mediaTypes: string[]; schema: Schema; sampled: unknown };
  /** Security schemes that satisfy it (empty: no authentication). */
  schemes: string[];
}

/** Every operation of the three documents (28). */
export function operationsOf(apis: ApiName[] = ['v2', 'v1', 'oauth']): OperationSpec[] {
  const out: OperationSpec[] = [];
  for (const api of apis) {
    const doc = loadBundle(api) as unknown as {
      paths: Record<string, Record<string, any>>;
      components: { parameters?: Record<string, any> };
      security?: any[];
    };
    const resolve = (p: any) => (p.$ref ? doc.components.parameters![p.$ref.split('/').pop()] : p);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object' || !op.operationId) continue;
        const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
        const spec = (p: any): ParamSpec => ({ name: p.name, required: Boolean(p.required), schema: p.schema, sampled: sample(p.schema, {}, doc as never) });
        const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
        const first = content ? Object.values(content)[0] : undefined;
        out.push({
          api,
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          pathParams: params.filter((p) => p.in === 'path').map(spec),
          queryParams: params.filter((p) => p.in === 'query').map(spec),
          body:
            content && first
              ? { mediaTypes: Object.keys(content), schema: first.schema, sampled: sample(first.schema, { skipReadOnly: true }, doc as never) }
              : undefined,
          schemes: ((op.security ?? doc.security ?? []) as Array<Record<string, unknown>>).flatMap((requirement) => Object.keys(requirement)),
        });
      }
    }
  }
  return out;
}

/* ------------------------------------------------------------------------------------------------
 * The world the valid requests are valid in
 * --------------------------------------------------------------------------------------------- */

export interface Writable {
  name: string;
  value: fc.Arbitrary<number | string>;
  incrementable: boolean;
}

export interface Vocabulary {
  bearer: string;
  session: string;
  /** $self, the person's own name, another person's. */
  usernames: string[];
  password: string;
  ownUsername: string;
  /** The person's attribute names (for reads). */
  attributeNames: string[];
  templates: string[];
  dates: string[];
  /** Attributes the fuzzing app owns, with values valid for them. */
  writable: Writable[];
  oauth: { clientId: string; clientSecret: string; redirectUri: string; scope: string };
  /** The fuzzing app's own credentials (HTTP Basic) and a webhook endpoint of it with one delivery. */
  app: { basic: string; endpointId: string; messageId: string };
}

/** Stand-ins replaced right before sending with a credential made for that one request. */
export const FRESH = { code: '{{fresh-code}}', refresh: '{{fresh-refresh-token}}', csrf: '{{csrf}}' } as const;

/** The OAuth endpoints whose body is OAuth parameters with the client's own authentication (token, revocation). */
export const CLIENT_PARAMETER_OPERATIONS: readonly string[] = ['createAccessToken', 'revokeToken'];

/* ------------------------------------------------------------------------------------------------
 * The request model and its encoding
 * --------------------------------------------------------------------------------------------- */

/** JSON text put into a body as is (deep nesting, numbers JSON.stringify cannot write). */
export class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return `RawJson(${this.text.length > 60 ? `${this.text.slice(0, 60)}… ${this.text.length} chars` : this.text})`;
  }
}

export interface Model {
  op: OperationSpec;
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  /** Appended to the query string verbatim. */
  querySuffix: string;
  authorization: string | undefined;
  session: string | undefined;
  /** How the body is encoded. */
  mediaType: string | undefined;
  /** The Content-Type header sent: undefined = the media type's own; null = none. */
  contentType: string | null | undefined;
  body: unknown;
  /** Replaces the encoded body. */
  rawBody: Buffer | undefined;
  chunked: boolean;
  /** Names of the mutations applied. */
  mutations: string[];
}

function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, v]) => `${JSON.stringify(key)}:${toJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Percent-encodes like encodeURIComponent, and lone surrogates as the bytes Node writes for them instead of throwing. */
export function encodeLoose(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}

function formPairs(body: unknown): Array<[string, string]> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [['value', toJson(body)]];
  return Object.entries(body).flatMap(([key, value]): Array<[string, string]> =>
    Array.isArray(value) ? value.map((v) => [key, typeof v === 'string' ? v : toJson(v)]) : [[key, typeof value === 'string' ? value : toJson(value)]],
  );
}

function encodeBody(model: Model): Buffer | undefined {
  if (model.rawBody) return model.rawBody;
  if (model.body === undefined || !model.mediaType) return undefined;
  if (model.mediaType === 'application/json') return Buffer.from(toJson(model.body), 'utf8');
  const pairs = formPairs(model.body);
  if (model.mediaType === 'multipart/form-data') {
    const parts = pairs.map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, '%22')}"\r\n\r\n${value}\r\n`);
    return Buffer.from(`${parts.join('')}--${BOUNDARY}--\r\n`, 'utf8');
  }
  return Buffer.from(pairs.map(([name, value]) => `${encodeLoose(name)}=${encodeLoose(value)}`).join('&'), 'utf8');
}

const BOUNDARY = 'fuzzboundary7MA4YWxkTrZu0gW';

function contentTypeOf(mediaType: string): string {
  return mediaType === 'multipart/form-data' ? `multipart/form-data; boundary=${BOUNDARY}` : mediaType;
}

/** `value` with the stand-ins of FRESH replaced wherever they occur in its strings. */
function fillDeep(value: unknown, fill: (text: string) => string): unknown {
  if (typeof value === 'string') return fill(value);
  if (Array.isArray(value)) return value.map((item) => fillDeep(item, fill));
  if (value && typeof value === 'object' && !(value instanceof RawJson))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, fill)]));
  return value;
}

/** The bytes to send. `fresh` fills in the stand-ins of FRESH. */
export function encode(model: Model, fresh: Record<string, string>): RawRequest {
  const fill = (text: string) => Object.entries(fresh).reduce((out, [key, value]) => out.split(key).join(value), text);
  const path = model.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = model.pathParams[name];
    // Path values are encoded, except the ones a mutation meant as raw bytes (they start with RAW).
    return value.startsWith(RAW) ? value.slice(RAW.length) : encodeLoose(value).replace(/%24/g, '$');
  });
  const query = model.query.map(([name, value]) => `${encodeLoose(name)}=${encodeLoose(fill(value))}`).join('&') + model.querySuffix;
  const headers: Record<string, string> = {};
  if (model.authorization !== undefined) headers.Authorization = model.authorization;
  if (model.session !== undefined) headers.Cookie = `daybook_session=${model.session}`;
  const filled = encodeBody({ ...model, body: fillDeep(model.body, fill) });
  if (filled) {
    const type = model.contentType === undefined ? (model.mediaType ? contentTypeOf(model.mediaType) : undefined) : model.contentType;
    if (type !== null && type !== undefined) headers['Content-Type'] = type;
  }
  return { method: model.op.method, target: query ? `${path}?${query}` : path, headers, body: filled, chunked: model.chunked };
}

/** Marks a path value to be sent without encoding. */
export const RAW = '\u0001raw:';

/* ------------------------------------------------------------------------------------------------
 * Valid requests
 * --------------------------------------------------------------------------------------------- */

const flag = fc.constantFrom('true', 'false', '1', '0', 'True', 'FALSE');

function listOf(names: string[]): fc.Arbitrary<string> {
  return fc.subarray(names, { minLength: 1, maxLength: 4 }).map((picked) => picked.join(','));
}

/** A good value for a query or path parameter, by name; the sampled one when the name is not special. */
function goodParam(param: ParamSpec, v: Vocabulary): fc.Arbitrary<string> {
  switch (param.name) {
    case 'username':
      return fc.constantFrom(...v.usernames);
    case 'attribute':
    case 'attribute2':
      return fc.constantFrom(...v.attributeNames);
    case 'attributes':
      return listOf(v.attributeNames);
    case 'templates':
      return listOf(v.templates);
    case 'groups':
      return listOf([...GROUP_NAMES]);
    case 'page':
      return fc.constantFrom('1', '1', '1', '2');
    case 'limit':
    case 'days':
      return fc.integer({ min: 1, max: Math.min(100, Number((param.schema as { maximum?: number }).maximum ?? 100)) }).map(String);
    case 'date_min':
    case 'date_max':
      return fc.constantFrom(...v.dates);
    case 'priority':
      return fc.integer({ min: 1, max: 4 }).map(String);
    case 'response_type':
      return fc.constant('code');
    case 'client_id':
      return fc.constant(v.oauth.clientId);
    case 'redirect_uri':
      return fc.constant(v.oauth.redirectUri);
    case 'scope':
      return fc.constant(v.oauth.scope);
    case 'state':
      return fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme-ascii' });
    case 'id':
      return fc.constant(v.app.endpointId);
    case 'message_id':
      return fc.constant(v.app.messageId);
    default: {
      const schema = param.schema as { $ref?: string; type?: string };
      if (schema.$ref?.endsWith('/Flag')) return flag;
      return fc.constant(String(param.sampled));
    }
  }
}

function goodItems(operationId: string, v: Vocabulary): fc.Arbitrary<unknown[]> {
  const owned = v.writable;
  const incrementable = owned.filter((w) => w.incrementable);
  const date = fc.constantFrom(...v.dates);
  const item: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    updateAttributeValues: fc.constantFrom(...owned).chain((w) => fc.record({ name: fc.constant(w.name), date, value: w.value })),
    incrementAttributeValues: fc
      .constantFrom(...incrementable)
      .chain((w) => fc.record({ name: fc.constant(w.name), value: fc.integer({ min: 0, max: 50 }), date }, { requiredKeys: ['name', 'value'] })),
    acquireAttributes: fc.oneof(
      fc.record({ template: fc.constantFrom(...v.templates), manual: fc.boolean() }, { requiredKeys: ['template'] }),
      fc.record({ name: fc.constantFrom(...owned.map((w) => w.name)) }),
    ),
    releaseAttributes: fc.record({ name: fc.constantFrom(...owned.map((w) => w.name)) }),
    createAttributes: fc.oneof(
      fc.record({ template: fc.constantFrom(...v.templates) }),
      fc.record(
        {
          label: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,30}$/),
          group: fc.constantFrom(...GROUP_NAMES),
          value_type: fc.integer({ min: 0, max: 8 }),
          manual: fc.boolean(),
        },
        { requiredKeys: ['label', 'group', 'value_type'] },
      ),
    ),
  };
  return fc.array(item[operationId], { minLength: 1, maxLength: 4 });
}

function goodBody(op: OperationSpec, v: Vocabulary): fc.Arbitrary<unknown> | undefined {
  if (!op.body) return undefined;
  switch (op.operationId) {
    case 'updateAttributeValues':
    case 'incrementAttributeValues':
    case 'acquireAttributes':
    case 'releaseAttributes':
    case 'createAttributes':
      return goodItems(op.operationId, v);
    case 'createSimpleToken':
      return fc.constant({ username: v.ownUsername, password: v.password });
    case 'createWebhook':
      return fc.record({
        url: fc.constantFrom('http://127.0.0.1:9/hooks', 'http://localhost:9/hooks'),
        events: fc.subarray(['values.updated', 'grant.revoked', 'derived.updated'], { minLength: 1 }),
      });
    case 'updateWebhook':
      return fc.record({ events: fc.subarray(['values.updated', 'grant.revoked'], { minLength: 1 }) }, { requiredKeys: [] });
    case 'createAccessToken':
      return fc.oneof(
        fc.constant({ grant_type: 'refresh_token', refresh_token: FRESH.refresh, client_id: v.oauth.clientId, client_secret: v.oauth.clientSecret }),
        fc.constant({
          grant_type: 'authorization_code',
          code: FRESH.code,
          redirect_uri: v.oauth.redirectUri,
          client_id: v.oauth.clientId,
          client_secret: v.oauth.clientSecret,
        }),
      );
    case 'revokeToken':
      return fc.record(
        {
          token: fc.constant(FRESH.refresh),
          token_type_hint: fc.constantFrom('access_token', 'refresh_token'),
          client_id: fc.constant(v.oauth.clientId),
          client_secret: fc.constant(v.oauth.clientSecret),
        },
        { requiredKeys: ['token', 'client_id', 'client_secret'] },
      );
    case 'submitAuthorizationConsent':
      return fc.record({
        response_type: fc.constant('code'),
        client_id: fc.constant(v.oauth.clientId),
        redirect_uri: fc.constant(v.oauth.redirectUri),
        scope: fc.constant(v.oauth.scope),
        state: fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme-ascii' }),
        csrf_token: fc.constant(FRESH.csrf),
        decision: fc.constantFrom('allow', 'deny'),
      });
    default:
      return fc.constant(op.body.sampled);
  }
}

/** A request the document and the data make valid (mutations make it otherwise). */
export function validModel(op: OperationSpec, v: Vocabulary): fc.Arbitrary<Model> {
  const pathParams = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, goodParam(p, v)])));
  // The authorisation request's parameters are optional in the document (their absence is answered
  // as OAuth says) but a valid request has them; PKCE's two go together.
  const needed = (p: ParamSpec) =>
    p.required || (op.operationId === 'showAuthorizationPage' && ['response_type', 'client_id', 'redirect_uri', 'scope'].includes(p.name));
  const query = fc
    .tuple(
      ...op.queryParams.map((p) =>
        (needed(p) ? goodParam(p, v) : fc.option(goodParam(p, v), { nil: undefined, freq: 2 })).map((value) => [p.name, value] as const),
      ),
    )
    .map((pairs) => pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined).map(([name, value]) => [name, value] as [string, string]))
    .map((pairs) => {
      const pkce = pairs.filter(([name]) => name === 'code_challenge' || name === 'code_challenge_method');
      const valid = pkce.length === 1 ? pairs.filter((pair) => !pkce.includes(pair)) : pairs;
      // With-values takes attributes or templates, not both.
      return valid.some(([name]) => name === 'attributes') ? valid.filter(([name]) => name !== 'templates') : valid;
    });
  const body = goodBody(op, v) ?? fc.constant(undefined);
  const mediaType = op.body ? fc.constantFrom(...op.body.mediaTypes) : fc.constant(undefined);
  const usesSession = op.schemes.includes('Session') && !op.schemes.includes('OAuth2');
  const needsNoAuth = op.schemes.length === 0 || CLIENT_PARAMETER_OPERATIONS.includes(op.operationId);
  return fc.record({ pathParams, query, body, mediaType }).map(({ pathParams: pp, query: q, body: b, mediaType: mt }): Model => ({
    op,
    pathParams: pp,
    query: q,
    querySuffix: '',
    authorization: usesSession || needsNoAuth ? undefined : op.schemes.includes('ClientCredentials') ? v.app.basic : `Bearer ${v.bearer}`,
    // The consent page (GET) shows the consent only to a logged-in person.
    session: usesSession || op.operationId === 'showAuthorizationPage' ? v.session : undefined,
    mediaType: mt,
    contentType: undefined,
    body: b,
    rawBody: undefined,
    chunked: false,
    mutations: [],
  }));
}

/* ------------------------------------------------------------------------------------------------
 * Bad values
 * --------------------------------------------------------------------------------------------- */

const BAD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\t\r\n',
  '\u0007\u001b[31m',
  '\u202eevil',
  '\ufeff',
  '\ud800',
  'x\udfffy',
  '🧨💥',
  'Ω≈ç√∫',
  'ﷺ',
  '\u200b',
  "' OR '1'='1",
  "'; DROP TABLE attribute_values; --",
  '"); DELETE FROM users; --',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '${7*7}',
  '{{7*7}}',
  '../../../etc/passwd',
  '%00',
  '%',
  '%ZZ',
  '$self',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-1',
  '0',
  '-0',
  '00001',
  '1.5',
  '0x10',
  '9007199254740993',
  '99999999999999999999999',
  '1,2',
  ',',
  ',,,',
  'steps,steps,steps',
  '2026-02-30',
  '2026-13-01',
  '2026-00-10',
  '0000-01-01',
  '0001-01-01',
  '9999-12-31',
  '10000-01-01',
  '-2026-01-01',
  '2026-1-1',
  '2026-11-20T00:00:00Z',
  ' 2026-11-20',
  '２０２６-１１-２０',
  '2026/11/20',
  'today',
];

/** Strings clients should not send: control characters, unicode, injections, numbers and dates in disguise, huge and empty ones. */
export const badString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...BAD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.constantFrom(200, 1000, 5000, 100_000).map((n) => 'x'.repeat(n)) },
);

/** The same for query and path values, short enough for the request line (Node refuses one over 16 KB with 431). */
export const badParamString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...BAD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.constantFrom(200, 1000, 4000).map((n) => 'x'.repeat(n)) },
);

const badNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, 0.1, -1e-9, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, 2 ** 63, Number.MAX_SAFE_INTEGER, 5e-324, 10, 100, 1e21),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Numbers JSON.stringify cannot write, and number-like text that is not JSON. */
const rawNumbers = fc.constantFrom(
  '1e309',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '-0.0',
  '0x10',
  '01',
  '1.',
  '.5',
  '+1',
  'NaN',
  'Infinity',
  '1_000',
);

/** Arrays or objects nested `depth` levels deep, as JSON text. */
export function deepJson(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array' ? new RawJson('['.repeat(depth) + ']'.repeat(depth)) : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

/** Any JSON value a field should not hold. */
export const badJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: badString },
  { weight: 3, arbitrary: badNumber },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, [], {}, [1, 2], { value: 1 }, [[]], ['steps']) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: rawNumbers.map((text) => new RawJson(text)) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(33, 100, 5000, 100_000), fc.constantFrom('array' as const, 'object' as const)).map(([d, k]) => deepJson(d, k)),
  },
);

/* ------------------------------------------------------------------------------------------------
 * Mutations
 * --------------------------------------------------------------------------------------------- */

export type Mutation =
  | { kind: 'setQuery'; name: string; value: string }
  | { kind: 'dropQuery'; name: string }
  | { kind: 'repeatQuery'; name: string; value: string }
  | { kind: 'extraQuery'; name: string; value: string }
  | { kind: 'rawQuery'; suffix: string }
  | { kind: 'setPath'; name: string; value: string }
  | { kind: 'auth'; value: string | undefined }
  | { kind: 'noSession' }
  | { kind: 'setField'; index: number; field: string; value: unknown }
  | { kind: 'dropField'; index: number; field: string }
  | { kind: 'replaceItem'; index: number; value: unknown }
  | { kind: 'tooManyItems'; count: number }
  | { kind: 'emptyBatch' }
  | { kind: 'replaceBody'; value: unknown }
  | { kind: 'repeatFormField'; field: string; value: string }
  | { kind: 'contentType'; value: string | null }
  | { kind: 'mediaType'; value: string }
  | { kind: 'malformed'; how: 'truncate' | 'garbage' | 'bom' | 'invalidUtf8' | 'nul' | 'badPercent' | 'empty'; at: number }
  | { kind: 'oversize'; chunked: boolean }
  | { kind: 'chunked' };

const fieldNames = (op: OperationSpec): string[] => {
  const names = new Set<string>([
    'name',
    'date',
    'value',
    'template',
    'label',
    'group',
    'value_type',
    'manual',
    'username',
    'password',
    'grant_type',
    'code',
    'refresh_token',
    'client_id',
    'client_secret',
    'redirect_uri',
    'scope',
    'decision',
    'csrf_token',
    'state',
  ]);
  const sampled = op.body?.sampled;
  const first = Array.isArray(sampled) ? sampled[0] : sampled;
  if (first && typeof first === 'object') Object.keys(first).forEach((key) => names.add(key));
  return [...names];
};

const QUERY_SUFFIXES = [
  '&',
  '&=',
  '&&&',
  '&=x',
  '&%ZZ=1',
  '&a%00b=1',
  '&limit',
  '&page[]=1&page[]=2',
  '&attributes[a]=b',
  '&a=%ED%A0%80',
  '&b=%FF%FE',
  ';x=1',
  '&' + 'x=1&'.repeat(500),
];
const RAW_PATH_VALUES = ['%2F', '..', '.', '%2E%2E', '%', '%ZZ', '%00', '%ED%A0%80', '%FF', 'a%2Fb', '%20', '$self%20', '%24self'];
const CONTENT_TYPES = [
  null,
  '',
  'text/plain',
  'application/xml',
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=nonsense',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  ';;;',
  'application/json, text/plain',
  '*/*',
];
const AUTHORIZATIONS = [
  undefined,
  'Bearer',
  'Bearer ',
  'Bearer x',
  'Bearer ' + 'A'.repeat(600),
  'bearer invalid-token',
  'Token x',
  'Basic Zm9vOmJhcg==',
  'Digest x',
  'Bearer a b',
  'Bearer \u00e9\u00e8',
  'x'.repeat(3000),
];

export function mutationArb(op: OperationSpec): fc.Arbitrary<Mutation> {
  const queryNames = op.queryParams.map((p) => p.name);
  const options: Array<fc.WeightedArbitrary<Mutation>> = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Mutation>) => options.push({ weight, arbitrary });
  const anyQueryName = fc.oneof(fc.constantFrom(...(queryNames.length > 0 ? queryNames : ['limit'])), fc.string({ maxLength: 10 }));
  if (queryNames.length > 0) {
    add(6, fc.record({ kind: fc.constant('setQuery' as const), name: fc.constantFrom(...queryNames), value: badParamString }));
    add(2, fc.record({ kind: fc.constant('dropQuery' as const), name: fc.constantFrom(...queryNames) }));
    add(2, fc.record({ kind: fc.constant('repeatQuery' as const), name: fc.constantFrom(...queryNames), value: fc.oneof(badParamString, fc.constant('1')) }));
  }
  add(1, fc.record({ kind: fc.constant('extraQuery' as const), name: anyQueryName, value: badParamString }));
  add(1, fc.record({ kind: fc.constant('rawQuery' as const), suffix: fc.constantFrom(...QUERY_SUFFIXES) }));
  if (op.pathParams.length > 0) {
    add(
      5,
      fc.record({
        kind: fc.constant('setPath' as const),
        name: fc.constantFrom(...op.pathParams.map((p) => p.name)),
        value: fc.oneof(
          badParamString,
          fc.constantFrom(...RAW_PATH_VALUES).map((raw) => RAW + raw),
        ),
      }),
    );
  }
  if (op.schemes.length > 0 && !CLIENT_PARAMETER_OPERATIONS.includes(op.operationId)) {
    add(
      1,
      op.schemes.includes('OAuth2') || op.schemes.includes('ClientCredentials')
        ? fc.record({ kind: fc.constant('auth' as const), value: fc.constantFrom(...AUTHORIZATIONS) })
        : fc.constant({ kind: 'noSession' as const }),
    );
  }
  if (op.body) {
    const fields = fieldNames(op);
    const index = fc.nat({ max: 3 });
    add(
      8,
      fc.record({
        kind: fc.constant('setField' as const),
        index,
        field: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
        value: badJson,
      }),
    );
    add(3, fc.record({ kind: fc.constant('dropField' as const), index, field: fc.constantFrom(...fields) }));
    add(2, fc.record({ kind: fc.constant('replaceBody' as const), value: badJson }));
    add(2, fc.record({ kind: fc.constant('contentType' as const), value: fc.constantFrom(...CONTENT_TYPES) }));
    add(
      1,
      fc.record({
        kind: fc.constant('mediaType' as const),
        value: fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'),
      }),
    );
    add(
      3,
      fc.record({
        kind: fc.constant('malformed' as const),
        how: fc.constantFrom('truncate', 'garbage', 'bom', 'invalidUtf8', 'nul', 'badPercent', 'empty'),
        at: fc.nat(),
      }),
    );
    add(1, fc.record({ kind: fc.constant('oversize' as const), chunked: fc.boolean() }));
    add(1, fc.constant({ kind: 'chunked' as const }));
    if (Array.isArray(op.body.sampled)) {
      add(3, fc.record({ kind: fc.constant('replaceItem' as const), index, value: badJson }));
      add(2, fc.record({ kind: fc.constant('tooManyItems' as const), count: fc.integer({ min: 36, max: 60 }) }));
      add(1, fc.constant({ kind: 'emptyBatch' as const }));
    } else {
      add(2, fc.record({ kind: fc.constant('repeatFormField' as const), field: fc.constantFrom(...fields), value: fc.oneof(badString, fc.constant('x')) }));
    }
  }
  return fc.oneof(...options);
}

function bodyItems(model: Model): unknown[] | undefined {
  return Array.isArray(model.body) ? model.body : undefined;
}

function withObject(model: Model, index: number, change: (target: Record<string, unknown>) => void): void {
  const items = bodyItems(model);
  if (items) {
    if (items.length === 0) return;
    const at = index % items.length;
    const item = items[at];
    if (item && typeof item === 'object' && !Array.isArray(item) && !(item instanceof RawJson)) {
      const copy = { ...(item as Record<string, unknown>) };
      change(copy);
      model.body = items.map((x, i) => (i === at ? copy : x));
    }
    return;
  }
  if (model.body && typeof model.body === 'object' && !(model.body instanceof RawJson)) {
    const copy = { ...(model.body as Record<string, unknown>) };
    change(copy);
    model.body = copy;
  }
}

export function applyMutation(model: Model, mutation: Mutation): void {
  model.mutations.push(mutation.kind);
  switch (mutation.kind) {
    case 'setQuery':
      model.query = [...model.query.filter(([name]) => name !== mutation.name), [mutation.name, mutation.value]];
      break;
    case 'dropQuery':
      model.query = model.query.filter(([name]) => name !== mutation.name);
      break;
    case 'repeatQuery': {
      const existing = model.query.find(([name]) => name === mutation.name);
      model.query = [...model.query, ...(existing ? [] : [[mutation.name, '1'] as [string, string]]), [mutation.name, mutation.value]];
      break;
    }
    case 'extraQuery':
      model.query = [...model.query, [mutation.name, mutation.value]];
      break;
    case 'rawQuery':
      model.querySuffix += mutation.suffix;
      break;
    case 'setPath':
      model.pathParams = { ...model.pathParams, [mutation.name]: mutation.value };
      break;
    case 'auth':
      model.authorization = mutation.value;
      break;
    case 'noSession':
      model.session = undefined;
      break;
    case 'setField':
      withObject(model, mutation.index, (target) => {
        target[mutation.field] = mutation.value;
      });
      break;
    case 'dropField':
      withObject(model, mutation.index, (target) => {
        delete target[mutation.field];
      });
      break;
    case 'replaceItem': {
      const items = bodyItems(model);
      if (items && items.length > 0) model.body = items.map((x, i) => (i === mutation.index % items.length ? mutation.value : x));
      break;
    }
    case 'tooManyItems': {
      const items = bodyItems(model) ?? [];
      model.body = Array.from({ length: mutation.count }, (_, i) => items[i % Math.max(1, items.length)] ?? {});
      break;
    }
    case 'emptyBatch':
      model.body = [];
      break;
    case 'replaceBody':
      model.body = mutation.value;
      break;
    case 'repeatFormField':
      withObject(model, 0, (target) => {
        const current = target[mutation.field];
        target[mutation.field] = [...(Array.isArray(current) ? current : [current ?? 'x']), mutation.value];
      });
      break;
    case 'contentType':
      model.contentType = mutation.value;
      break;
    case 'mediaType':
      model.mediaType = mutation.value;
      break;
    case 'malformed': {
      const text = encode(model, {}).body ?? Buffer.from('[]');
      const at = text.length > 0 ? mutation.at % text.length : 0;
      const pieces: Record<typeof mutation.how, () => Buffer> = {
        truncate: () => text.subarray(0, Math.max(1, at)),
        garbage: () => Buffer.concat([text, Buffer.from('}{,]"\\')]),
        bom: () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text]),
        invalidUtf8: () => Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), text.subarray(at)]),
        nul: () => Buffer.concat([text.subarray(0, at), Buffer.from([0]), text.subarray(at)]),
        badPercent: () => Buffer.concat([text, Buffer.from('&x=%E0%A4%A&y=%')]),
        empty: () => Buffer.alloc(0),
      };
      model.rawBody = pieces[mutation.how]();
      break;
    }
    case 'oversize': {
      // Over the limit by the field alone: a multipart parser counts the fields' bytes, not the framing.
      const padding = 'x'.repeat(BODY_LIMIT_BYTES + 1024);
      if (Array.isArray(model.body)) model.body = [...model.body, { name: padding }];
      else if (model.body && typeof model.body === 'object') model.body = { ...(model.body as object), padding };
      else model.body = padding;
      model.chunked = mutation.chunked;
      break;
    }
    case 'chunked':
      model.chunked = true;
      break;
  }
}

/** A valid request with 0-3 mutations (a fifth are left valid, to check that those succeed). */
export function requestArb(op: OperationSpec, v: Vocabulary): fc.Arbitrary<{ model: Model; mutations: Mutation[] }> {
  return fc
    .tuple(
      validModel(op, v),
      fc.oneof({ weight: 1, arbitrary: fc.constant([] as Mutation[]) }, { weight: 4, arbitrary: fc.array(mutationArb(op), { minLength: 1, maxLength: 3 }) }),
    )
    .map(([model, mutations]) => {
      const copy: Model = { ...model, mutations: [] };
      for (const mutation of mutations) applyMutation(copy, mutation);
      return { model: copy, mutations };
    });
}

/** The status a request must get when one mutation alone decides it; undefined when it is not that simple. */
export function decidedStatus(model: Model, mutations: Mutation[]): number[] | undefined {
  if (mutations.length !== 1) return undefined;
  const [m] = mutations;
  const op = model.op;
  const json = model.mediaType === 'application/json' && model.contentType === undefined;
  switch (m.kind) {
    case 'oversize':
      return [413];
    case 'tooManyItems':
      return CLIENT_PARAMETER_OPERATIONS.includes(op.operationId) ? undefined : [400];
    case 'malformed':
      if (m.how === 'truncate' || m.how === 'garbage') return json && op.api !== 'oauth' ? [400] : undefined;
      return undefined;
    case 'contentType':
      if (m.value === 'text/plain' || m.value === 'application/xml')
        return op.api === 'oauth' && !CLIENT_PARAMETER_OPERATIONS.includes(op.operationId) ? undefined : [415];
      return undefined;
    case 'auth':
      return op.schemes.includes('OAuth2') || op.schemes.includes('ClientCredentials') ? [401] : undefined;
    default:
      return undefined;
  }
}
