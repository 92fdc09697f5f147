/**
 * Code samples for every operation of a bundled OpenAPI document, as Redoc's `x-codeSamples`
 * (docs/decisions.md, "Documentation partners copy from"): curl, Python (requests) and JavaScript (fetch), written by
 * the httpsnippet library from a HAR request built out of the document's own examples.
 *
 * One operation's request is first described as a plain `sampleContext` (the shape fixed in the
 * interface notes of issue 29, also given to the typed client's sample writer), then turned into
 * samples. Everything here depends only on the document, so a build is deterministic and
 * `npm run check:generated` sees stale samples.
 *
 * Credentials are never real: curl reads them from shell variables (`$ACCESS_TOKEN`,
 * `$SIMPLE_TOKEN`, `$CLIENT_ID` and `$CLIENT_SECRET`, as the v2 quick start sets them; `$SESSION`),
 * Python and JavaScript carry placeholders (`<ACCESS_TOKEN>`...) to replace.
 */
import { HTTPSnippet } from 'httpsnippet';
import OpenAPISampler from 'openapi-sampler';
import { typedClientSample } from '../../client/code-samples.mjs';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const BODY_TYPES = ['application/json', 'application/x-www-form-urlencoded'];

/** Follows a local `$ref` ("#/components/...") to the node it names. */
function deref(doc, node) {
  let current = node;
  while (current && typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

/** The example value a parameter or media type gives (`example`, else the first of `examples`). */
function exampleOf(doc, node) {
  if (node.example !== undefined) return node.example;
  const first = node.examples && Object.values(node.examples)[0];
  return first === undefined ? undefined : deref(doc, first).value;
}

/** A realistic value for a parameter: its example, its schema's, its default, else a sampled one. */
function parameterValue(doc, parameter) {
  const schema = deref(doc, parameter.schema) ?? {};
  const value =
    exampleOf(doc, parameter) ?? schema.example ?? schema.examples?.[0] ?? schema.default ?? OpenAPISampler.sample(schema, { skipReadOnly: true }, doc);
  return String(value);
}

/** The request body: the first JSON or form media type, with its first example (or a sampled one). */
function bodyOf(doc, operation) {
  const requestBody = deref(doc, operation.requestBody);
  if (!requestBody) return { body: undefined, contentType: undefined };
  const contentType = Object.keys(requestBody.content ?? {}).find((type) => BODY_TYPES.includes(type));
  if (!contentType) return { body: undefined, contentType: undefined };
  const media = requestBody.content[contentType];
  const body = exampleOf(doc, media) ?? OpenAPISampler.sample(media.schema, { skipReadOnly: true }, doc);
  return { body, contentType };
}

/**
 * The credential a sample sends. OAuth2 wins where it is accepted (the way apps call); a read that
 * takes only a simple token or session shows the simple token; the app's own client credentials are
 * HTTP Basic. The token endpoint allows no header (`{}`): its example body carries `client_id` and
 * `client_secret`, so it sends none. A page for a person's browser session (the consent form) has
 * no API credential either: `session` here, `none` in the context.
 */
function authOf(doc, operation, body) {
  const requirements = operation.security ?? doc.security ?? [];
  const schemes = requirements.flatMap((requirement) => Object.keys(requirement)).map((name) => deref(doc, doc.components?.securitySchemes?.[name]));
  if (schemes.some((scheme) => scheme?.type === 'oauth2')) return 'bearer';
  if (requirements.some((requirement) => Object.keys(requirement).length === 0)) {
    const basic = schemes.some((scheme) => scheme?.type === 'http' && scheme.scheme === 'basic');
    return basic && !(body && typeof body === 'object' && 'client_id' in body) ? 'basic' : 'none';
  }
  if (schemes.some((scheme) => scheme?.type === 'apiKey' && scheme.in === 'header')) return 'token';
  if (schemes.some((scheme) => scheme?.type === 'http' && scheme.scheme === 'basic')) return 'basic';
  if (schemes.some((scheme) => scheme?.type === 'apiKey' && scheme.in === 'cookie')) return 'session';
  return 'none';
}

/**
 * The request one operation's samples show, from the document's examples:
 * `{ api, operationId, method, path, pathParams, query, body, contentType, auth }`. Query
 * parameters are those the operation requires, and those with an example of their own and no
 * default (a filter worth showing; leaving out `page=1` or `limit=20` changes nothing), unless
 * the parameter says `x-code-samples-skip: true`.
 */
export function sampleContext(api, doc, path, method) {
  const item = doc.paths[path];
  const operation = item[method];
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) => deref(doc, parameter));
  const pathParams = {};
  const query = {};
  for (const parameter of parameters) {
    // An example of the parameter's own (a shared schema's, such as a date's, is not a choice made for it).
    const own = parameter.schema ?? {};
    const exemplified = exampleOf(doc, parameter) !== undefined || own.example !== undefined || own.examples !== undefined;
    // `x-code-samples-skip` leaves out a filter that may not be sent with another one shown.
    const worthShowing = parameter.required || (exemplified && own.default === undefined && !parameter['x-code-samples-skip']);
    if (parameter.in === 'path') pathParams[parameter.name] = parameterValue(doc, parameter);
    else if (parameter.in === 'query' && worthShowing) query[parameter.name] = parameterValue(doc, parameter);
  }
  const { body, contentType } = bodyOf(doc, operation);
  const auth = authOf(doc, operation, body);
  return {
    api,
    operationId: operation.operationId,
    method: method.toUpperCase(),
    path,
    pathParams,
    query,
    body,
    contentType,
    auth: auth === 'session' ? 'none' : auth,
    session: auth === 'session', // not in the shared context shape: only these samples use it
  };
}

/** The URL of a context's request on `server`, path parameters filled in (`$self` kept readable), without the query. */
export function urlOf(context, server) {
  return server + context.path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(context.pathParams[name]).replace(/%24/g, '$'));
}

/** The session cookie's placeholder as httpsnippet writes it (it URL-encodes cookie values). */
const SESSION = 'SESSION';

/** Header values the samples send (curl's are rewritten to shell variables below). */
const AUTH_HEADER = { bearer: 'Bearer <ACCESS_TOKEN>', token: 'Token <SIMPLE_TOKEN>', basic: 'Basic <CLIENT_CREDENTIALS>' };

/** The HAR request httpsnippet reads. */
function harOf(context, server, options = { authHeader: true }) {
  const headers = [];
  if (options.authHeader && AUTH_HEADER[context.auth]) headers.push({ name: 'Authorization', value: AUTH_HEADER[context.auth] });
  let postData;
  if (context.contentType === 'application/json') {
    headers.push({ name: 'Content-Type', value: context.contentType });
    postData = { mimeType: context.contentType, text: JSON.stringify(context.body) };
  } else if (context.contentType === 'application/x-www-form-urlencoded') {
    headers.push({ name: 'Content-Type', value: context.contentType });
    const params = Object.entries(context.body).map(([name, value]) => ({ name, value: String(value) }));
    postData = { mimeType: context.contentType, params };
  }
  return {
    method: context.method,
    url: urlOf(context, server),
    httpVersion: 'HTTP/1.1',
    queryString: Object.entries(context.query).map(([name, value]) => ({ name, value })),
    headers,
    cookies: context.session ? [{ name: 'daybook_session', value: 'SESSION' }] : [],
    postData,
  };
}

/** Replaces `from` in `text`, failing the build when it is not there (a library change must be seen). */
function replaceOnce(text, from, to) {
  if (!text.includes(from)) throw new Error(`code samples: expected ${JSON.stringify(from)} in:\n${text}`);
  return text.replace(from, () => to);
}

/** curl: credentials from shell variables, so that a person who set them can paste the command. */
function curlSample(snippet, auth) {
  const source = snippet.convert('shell', 'curl', { prettifyJson: true });
  if (auth === 'bearer') return replaceOnce(source, `--header 'Authorization: Bearer <ACCESS_TOKEN>'`, `--header "Authorization: Bearer $ACCESS_TOKEN"`);
  if (auth === 'token') return replaceOnce(source, `--header 'Authorization: Token <SIMPLE_TOKEN>'`, `--header "Authorization: Token $SIMPLE_TOKEN"`);
  if (auth === 'basic') return replaceOnce(source, `--header 'Authorization: Basic <CLIENT_CREDENTIALS>'`, `--user "$CLIENT_ID:$CLIENT_SECRET"`);
  if (auth === 'session') return replaceOnce(source, `--cookie daybook_session=${SESSION}`, `--cookie "daybook_session=$SESSION"`);
  return source;
}

/** Python: HTTP Basic through requests' own `auth`, not a hand-made header. */
function pythonSample(context, server) {
  const basic = context.auth === 'basic';
  const source = new HTTPSnippet(harOf(context, server, { authHeader: !basic })).convert('python', 'requests');
  if (!basic) return source;
  const call = /response = requests\.\w+\(url/.exec(source)[0];
  return replaceOnce(source, call, `${call}, auth=("<CLIENT_ID>", "<CLIENT_SECRET>")`);
}

/** JavaScript: the Basic header encoded in the sample rather than a placeholder for base64. */
function fetchSample(snippet, auth) {
  const source = snippet.convert('javascript', 'fetch');
  if (auth !== 'basic') return source;
  return replaceOnce(source, `'Basic <CLIENT_CREDENTIALS>'`, '`Basic ${btoa(`<CLIENT_ID>:<CLIENT_SECRET>`)}`');
}

/**
 * The authorisation endpoint is a page for the person's browser, not an API call: its samples send
 * the browser to the URL (a link or a redirect in a real app).
 */
function browserSamples(context, server) {
  const query = new URLSearchParams(context.query).toString();
  const url = `${urlOf(context, server)}?${query}`;
  const entries = Object.entries(context.query);
  const python = entries.map(([name, value]) => `    ${JSON.stringify(name)}: ${JSON.stringify(value)},`).join('\n');
  const js = entries.map(([name, value]) => `  ${name}: ${JSON.stringify(value).replace(/^"|"$/g, "'")},`).join('\n');
  return {
    curl: `# A page for the person, not an API call: open it in their browser (xdg-open, or open on macOS).\nxdg-open '${url}'`,
    python: `import webbrowser\nfrom urllib.parse import urlencode\n\nparams = {\n${python}\n}\n\n# A page for the person, not an API call: send their browser there.\nwebbrowser.open("${urlOf(context, server)}?" + urlencode(params))`,
    javascript: `const params = new URLSearchParams({\n${js}\n});\n\n// A page for the person, not an API call: send their browser there.\nwindow.location.assign(\`${urlOf(context, server)}?\${params}\`);`,
  };
}

/** The three samples of one operation, in the order Redoc shows them. */
export function codeSamples(context, server) {
  let samples;
  if (context.method === 'GET' && context.path === '/oauth2/authorize') samples = browserSamples(context, server);
  else {
    const snippet = new HTTPSnippet(harOf(context, server));
    const credential = context.session ? 'session' : context.auth;
    samples = { curl: curlSample(snippet, credential), python: pythonSample(context, server), javascript: fetchSample(snippet, credential) };
    // Python and JavaScript show the cookie's placeholder as the others (`<SESSION>`).
    samples.python = samples.python.replace(`daybook_session=${SESSION}`, 'daybook_session=<SESSION>');
    samples.javascript = samples.javascript.replace(`daybook_session=${SESSION}`, 'daybook_session=<SESSION>');
  }
  return [
    { lang: 'Shell', label: 'curl', source: samples.curl },
    { lang: 'Python', label: 'Python (requests)', source: samples.python },
    { lang: 'JavaScript', label: 'JavaScript (fetch)', source: samples.javascript },
  ];
}

/** Adds `x-codeSamples` to every operation of `doc` (a bundled document; changed in place). */
export function addCodeSamples(api, doc) {
  const server = doc.servers[0].url;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      const context = sampleContext(api, doc, path, method);
      const samples = codeSamples(context, server);
      // The fourth: the typed client's own call (client/code-samples.mjs), typed by this very bundle.
      const typed = typedClientSample({ ...context, document: doc });
      if (typed) samples.push({ lang: 'TypeScript', label: 'TypeScript client', source: typed });
      item[method]['x-codeSamples'] = samples;
    }
  }
  return doc;
}
