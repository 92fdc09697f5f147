/**
 * The requests the bench measures, the same for Daybook and the baseline. Writes are batches of 35
 * items: update and increment write the five attributes the bench service acquired, each on the
 * last seven days; acquire takes 35 of the person's attributes (the bench service already owns
 * them after the first request, so each request re-acquires: the steady state of a syncing
 * service); create makes 35 new attributes, with labels no request has used before.
 */
import crypto from 'node:crypto';
import { selectDemoTemplates } from '../../src/demo/demo-generator';
import { addDays } from '../../src/domain/time';
import { WRITE_ATTRIBUTES } from './fixtures';

export interface Scenario {
  /** Short name used in tables and options. */
  name: string;
  kind: 'read' | 'write';
  method: 'GET' | 'POST';
  path: string;
  /** The same body for every request. */
  body?: string;
  /** A new body for each request (numbered from 0 within a run of the bench). */
  bodyFor?: (sequence: number) => string;
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

/** Labels of created attributes start with this, so the bench can remove them afterwards. */
export const CREATED_LABEL_PREFIX = 'Bench created';

/** Told apart from earlier runs on a reused dataset. */
const RUN = crypto.randomBytes(3).toString('hex');

/** 35 new attributes: group activity, integer values (a created attribute's ordinary case). */
function createBody(sequence: number): string {
  return JSON.stringify(Array.from({ length: 35 }, (_, i) => ({ label: `${CREATED_LABEL_PREFIX} ${RUN} ${sequence} ${i}`, group: 'activity', value_type: 0 })));
}

/**
 * Every scenario, reads first; `today` is the dataset's last day (the users' today), `attributes`
 * the number of attributes each dataset user has.
 */
export function allScenarios(today: string, attributes = 40): Scenario[] {
  const acquired = selectDemoTemplates(Math.min(35, attributes)).map((name) => ({ name }));
  return [
    { name: 'with-values', kind: 'read', method: 'GET', path: '/api/2/attributes/with-values/?days=31&limit=20' },
    { name: 'values', kind: 'read', method: 'GET', path: '/api/2/attributes/values/?attribute=steps&limit=100' },
    { name: 'attributes', kind: 'read', method: 'GET', path: '/api/2/attributes/?limit=100' },
    { name: 'correlations', kind: 'read', method: 'GET', path: '/api/2/correlations/?limit=100' },
    { name: 'profile', kind: 'read', method: 'GET', path: '/api/2/accounts/profile/' },
    { name: 'update', kind: 'write', method: 'POST', path: '/api/2/attributes/update/', body: items(today, (name) => UPDATE_VALUES[name]) },
    { name: 'increment', kind: 'write', method: 'POST', path: '/api/2/attributes/increment/', body: items(today, () => 1) },
    { name: 'acquire', kind: 'write', method: 'POST', path: '/api/2/attributes/acquire/', body: JSON.stringify(acquired) },
    { name: 'create', kind: 'write', method: 'POST', path: '/api/2/attributes/create/', bodyFor: createBody },
  ];
}

let sequence = 0;

/** The body of the scenario's next request (a new one each time for `bodyFor` scenarios). */
export function nextBody(scenario: Scenario): string | undefined {
  return scenario.bodyFor ? scenario.bodyFor(sequence++) : scenario.body;
}

export const SCENARIO_NAMES = allScenarios('2026-01-01').map((s) => s.name);
