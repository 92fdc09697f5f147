/**
 * Issue 31, item 12: the v2 document explains where a correlation's stars come from (the week's
 * adjusted q, not the raw p), and the thresholds it states are the ones the weekly computation
 * uses (`starsFor`), read from the document as served.
 */
import { startTestApp, type TestApp } from '../support/app';
import { starsFor } from '../../src/analytics/correlations';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

test('the served v2 document says stars come from the adjusted q, not from p, with the thresholds the computation uses', async () => {
  const document = (await app.get('/openapi/v2.json', { unvalidated: true })).body;
  const correlation = document.components.schemas.Correlation.properties;
  expect(correlation.p.description).toMatch(/stars.*do not come from it/s);
  expect(correlation.p.description).toContain('`p = 0.0044` with 2 stars');
  const starsText: string = correlation.stars.description;
  expect(starsText).toContain('Benjamini-Hochberg adjusted p-value (q)');
  // "5 when q < 0.01, 4 when q < 0.05, …": each stated threshold gives that many stars just below it and fewer at it.
  const stated = [...starsText.matchAll(/(\d) when q < ([\d.]+)/g)].map(([, stars, q]) => ({ stars: Number(stars), q: Number(q) }));
  expect(stated.map((s) => s.stars)).toEqual([5, 4, 3, 2]);
  for (const { stars, q } of stated) {
    expect(starsFor(q - 1e-9).stars).toBe(stars);
    expect(starsFor(q).stars).toBe(stars - 1);
  }
});
