/**
 * Correlation stars explained (issue 31, item 12): stars come from the week's adjusted p-value q, not
 * from `p`, so a small `p` can show few stars. The served v2 document says so where both are described.
 */
import { startTestApp, type TestApp } from '../../support/app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

test('the Correlation object of the served v2 document ties stars to q, with their thresholds, and says p = 0.0044 can show 2 stars', async () => {
  const res = await app.get('/openapi/v2.json', { unvalidated: true }); // the documents themselves are not API responses
  expect(res.status).toBe(200);
  const correlation = res.body.components.schemas.Correlation;
  const stars: string = correlation.properties.stars.description;
  const p: string = correlation.properties.p.description;
  expect(stars).toMatch(/adjusted p-value q/);
  expect(stars).toMatch(/not from `p`/);
  expect(stars).toMatch(/5 when q is\s+below 0\.01, 4 below 0\.05, 3 below 0\.1, 2 below 0\.15, else 1/);
  expect(stars).toContain('0.0044');
  expect(p).toMatch(/`stars` does not come from it/);
  expect(p).toContain('0.0044');
});
