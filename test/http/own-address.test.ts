/**
 * Issue 29, item 2: the served documents and Redoc pages name the instance that serves them
 * (PUBLIC_URL, or in development the request's checked origin), in their servers, code samples
 * and links, never the committed placeholder.
 */
import http from 'node:http';
import { startTestApp, type TestApp } from '../support/app';

const PLACEHOLDER = 'https://daybook.example.org';
const NAMES = ['v2', 'v1', 'oauth'];

describe('with PUBLIC_URL', () => {
  const PUBLIC_URL = 'https://daybook.partner.test/diary';
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ PUBLIC_URL: `${PUBLIC_URL}/` });
  });
  afterAll(async () => {
    await app.close();
  });

  test.each(NAMES)('/openapi/%s.json names PUBLIC_URL as its server and in every sample, never the placeholder', async (name) => {
    const res = await app.get(`/openapi/${name}.json`, { unvalidated: true });
    expect(res.status).toBe(200);
    expect(res.body.servers[0].url).toBe(PUBLIC_URL);
    expect(res.text).not.toContain(PLACEHOLDER);
    const operations = Object.values<any>(res.body.paths).flatMap((item) => Object.values<any>(item).filter((value) => value.operationId));
    // The HTTP samples (curl, Python, JavaScript) each name the server.
    const samples = operations.flatMap((operation) => operation['x-codeSamples'].slice(0, 3));
    expect(samples).toHaveLength(operations.length * 3);
    for (const sample of samples) expect(sample.source).toContain(`${PUBLIC_URL}/`);
  });

  test.each(NAMES)('the Redoc page of %s names PUBLIC_URL and never the placeholder', async (name) => {
    const res = await app.get(`/docs/${name}/`, { unvalidated: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain(`${PUBLIC_URL}/`);
    expect(res.text).not.toContain(PLACEHOLDER);
  });
});

describe('without PUBLIC_URL (development)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  test('the documents name the origin the request came to, the same answer each time', async () => {
    const first = await app.get('/openapi/v2.json', { unvalidated: true });
    expect(first.body.servers[0].url).toBe(app.baseUrl);
    expect(first.text).not.toContain(PLACEHOLDER);
    const again = await app.get('/openapi/v2.json', { unvalidated: true });
    expect(again.text).toBe(first.text);
    const page = await app.get('/docs/v2/', { unvalidated: true });
    expect(page.text).toContain(`${app.baseUrl}/api/2/`);
    expect(page.text).not.toContain(PLACEHOLDER);
  });

  test('a loopback Host header carrying more than a host and port is refused, not written into the document', async () => {
    const { port } = new URL(app.baseUrl);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/openapi/v2.json', headers: { Host: '[::1]"><script>x</script>' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(400);
    expect(answer.body).not.toContain('<script>');
  });
});
