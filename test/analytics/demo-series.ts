/** In-memory UserData from the demo generator (no database), for the statistics tests and timings. */
import { TEMPLATES_BY_NAME } from '../../src/db/catalogue-templates';
import { GROUPS } from '../../src/db/catalogue-groups';
import { generateDemoData, type DemoDataOptions } from '../../src/demo/demo-data';
import { addDays } from '../../src/domain/time';
import { buildUserData, type AttributeInput, type UserData } from '../../src/analytics/series';
import { daysBetween } from '../../src/domain/time';

const GROUP_BY_NAME = new Map(GROUPS.map((g) => [g.name, g]));

/** Catalogue details of a template as an attribute (ids from 1 in the order given). */
export function templateAttribute(name: string, id: number, points: AttributeInput['points']): AttributeInput {
  const t = TEMPLATES_BY_NAME.get(name);
  if (!t) throw new Error(`no template ${name}`);
  const group = GROUP_BY_NAME.get(t.group)!;
  return {
    id,
    name: t.name,
    label: t.label,
    template: t.name,
    group: t.group,
    groupLabel: group.label,
    groupPriority: group.priority,
    priority: t.priority,
    valueType: t.valueType,
    manual: false,
    unit: t.unit,
    points,
  };
}

/** The demo generator's data for `opts` as UserData covering its days (plus `extraDays` after). */
export function demoUserData(opts: DemoDataOptions, extraDays = 0): UserData {
  const series = generateDemoData(opts);
  const from = addDays(opts.endDate, -(opts.days - 1));
  const inputs = series
    .filter((s) => s.valueType !== 2)
    .map((s, i) =>
      templateAttribute(
        s.template,
        i + 1,
        s.values.map((v) => [daysBetween(from, v.date), Number(v.value)] as const),
      ),
    )
    .sort((a, b) => a.groupPriority - b.groupPriority || a.priority - b.priority || a.name.localeCompare(b.name));
  return buildUserData(1, from, addDays(opts.endDate, extraDays), inputs);
}
