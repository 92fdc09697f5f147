/**
 * The requests the bench measures, the same for Daybook and the baseline. Writes are batches of 35
 * items: the five attributes the bench service acquired, each on the last seven days.
 */
import { addDays } from '../../src/domain/time';
import { WRITE_ATTRIBUTES } from './fixtures';

export interface Scenario {
  /** Short name used in tables and options. */
  name: string;
  kind: 'read' | 'write';
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/** A day's total per written attribute, inside every range the rules state. */
const UPDATE_VALUES: Record<(typeof WRITE_ATTRIBUTES)[number], number> = {
  steps: 8412,
  water: 1750,
  coffees: 2,
  productive_min: 185,
  tasks_completed: 6,
};

function items(today: string, value: (name: (typeof WRITE_ATTRIBUTES)[number]) => number): string {
  const list = [];
  for (let back = 6; back >= 0; back--) {
    for (const name of WRITE_ATTRIBUTES) list.push({ name, date: addDays(today, -back), value: value(name) });
  }
  return JSON.stringify(list);
}

/** Every scenario, reads first; `today` is the dataset's last day (the users' today). */
export function allScenarios(today: string): Scenario[] {
  return [
    { name: 'with-values', kind: 'read', method: 'GET', path: '/api/2/attributes/with-values/?days=31&limit=20' },
    { name: 'values', kind: 'read', method: 'GET', path: '/api/2/attributes/values/?attribute=steps&limit=100' },
    { name: 'attributes', kind: 'read', method: 'GET', path: '/api/2/attributes/?limit=100' },
    { name: 'correlations', kind: 'read', method: 'GET', path: '/api/2/correlations/?limit=100' },
    { name: 'profile', kind: 'read', method: 'GET', path: '/api/2/accounts/profile/' },
    { name: 'update', kind: 'write', method: 'POST', path: '/api/2/attributes/update/', body: items(today, (name) => UPDATE_VALUES[name]) },
    { name: 'increment', kind: 'write', method: 'POST', path: '/api/2/attributes/increment/', body: items(today, () => 1) },
  ];
}

export const SCENARIO_NAMES = allScenarios('2026-01-01').map((s) => s.name);
