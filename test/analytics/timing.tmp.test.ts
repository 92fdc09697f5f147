import { demoUserData } from './demo-series';
import { computeCorrelations } from '../../src/analytics/correlations';
import { computeAverages } from '../../src/analytics/averages';
import { findInsights } from '../../src/analytics/insights';
import { PLANTED_RELATIONSHIPS } from '../../src/db/demo-data';
test('timing', () => {
  const data = demoUserData({ seed: 1, days: 400, endDate: '2026-11-22', attributes: 60 }, 0);
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    const c = computeCorrelations(data, '2026-11-16');
    const t1 = performance.now();
    const a = computeAverages(data, '2026-11-16');
    const t2 = performance.now();
    const ins = findInsights(data, '2026-11-22');
    const t3 = performance.now();
    console.log(data.attributes.length, c.tests, c.published.length, a.length, ins.length, (t1 - t0).toFixed(1), (t2 - t1).toFixed(1), (t3 - t2).toFixed(1));
  }
  const norh = demoUserData({ seed: 1, days: 400, endDate: '2026-11-22', attributes: 60, rhythms: false }, 0);
  const c = computeCorrelations(norh, '2026-11-16');
  console.log(c.published.map((p) => `${p.attribute} ${p.attribute2} ${p.offset} r=${p.value.toFixed(3)} p=${p.p.toExponential(2)} q=${p.q.toExponential(2)} ${p.stars} | ${p.secondPerson}`).join('\n'));
  console.log(PLANTED_RELATIONSHIPS);
  const ins = findInsights(norh, '2026-11-22');
  console.log(ins.map((i) => `${i.type.name} ${i.attribute.name} ${i.text}`).join('\n'));
});
