/**
 * The week at a glance on /data (docs/pages.md, "The week at a glance"): each charted attribute's
 * seven days ending with the chosen day as a small chart, with the week's total (counts, tags as
 * days) or mean (everything else, durations too: sleep reads per night) beside last week's and the person's usual (the mean of
 * the weeks before that in the days the page reads), biggest changes against the usual first,
 * grouped as the day's list is. Each day of the week is a link to its day.
 */
import { VALUE_TYPES } from '../db/catalogue-value-types';
import type { AttributeRowWithValues } from '../domain/tracking/attributes';
import { addDays } from '../domain/time';
import { isTag } from './day-form';
import { html, type Html } from './html';
import { attributeHref } from './links';
import { isCharted, shownType } from './series-view';
import { weekSparkline } from './sparkline';
import { formatValue } from './values';

const WEEK = 7;

interface WeekLine {
  entry: AttributeRowWithValues;
  days: Array<{ date: string; value: number | null }>;
  thisWeek: number | null;
  lastWeek: number | null;
  usual: number | null;
  /** How far this week is from the usual, relative to it: what orders the list. */
  change: number;
}

/** Whether the week of an attribute adds up (a total) rather than averages. */
function isTotal(entry: AttributeRowWithValues): boolean {
  const type = shownType(entry.row);
  return isTag(entry.row) || (entry.row.value_type === VALUE_TYPES.integer && type !== VALUE_TYPES.scale);
}

/** Values of the seven days starting `offset` days back from the newest (values are newest first). */
function weekOf(entry: AttributeRowWithValues, offset: number): Array<number | null> {
  return entry.values.slice(offset, offset + WEEK).map((v) => (typeof v.value === 'number' ? v.value : null));
}

function summary(values: Array<number | null>, total: boolean, tag: boolean): number | null {
  const numbers = values.filter((v): v is number => v !== null);
  if (tag) return values.length === WEEK ? numbers.filter((v) => v === 1).length : null;
  if (numbers.length === 0 || values.length < WEEK) return null;
  const sum = numbers.reduce((a, b) => a + b, 0);
  return total ? sum : sum / numbers.length;
}

function lineOf(entry: AttributeRowWithValues, date: string): WeekLine {
  const total = isTotal(entry);
  const tag = isTag(entry.row);
  const thisWeek = summary(weekOf(entry, 0), total, tag);
  const lastWeek = summary(weekOf(entry, WEEK), total, tag);
  const before = [1, 2, 3].map((w) => summary(weekOf(entry, w * WEEK), total, tag)).filter((v): v is number => v !== null);
  const usual = before.length > 0 ? before.reduce((a, b) => a + b, 0) / before.length : null;
  const change = thisWeek !== null && usual !== null ? Math.abs(thisWeek - usual) / Math.max(Math.abs(usual), 1e-9) : -1;
  const days = weekOf(entry, 0)
    .map((value, i) => ({ date: addDays(date, -i), value }))
    .reverse();
  return { entry, days, thisWeek, lastWeek, usual, change };
}

function shortDay(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', { weekday: 'short', timeZone: 'UTC' });
}

/** A week's figure in the attribute's own notation: tags as days, durations as h:mm. */
function figure(line: WeekLine, value: number | null): string {
  if (value === null) return '—';
  if (isTag(line.entry.row)) return `${value} day${value === 1 ? '' : 's'}`;
  const type = shownType(line.entry.row);
  if (type === VALUE_TYPES.period) return `${Math.floor(value / 60)}:${String(Math.round(value % 60)).padStart(2, '0')}`;
  if (type === VALUE_TYPES.timeOfDay || type === VALUE_TYPES.timeFromMidday || type === VALUE_TYPES.percentage) return formatValue(type, Math.round(value));
  return String(Math.round(value * 10) / 10);
}

function row(line: WeekLine): Html {
  const { name, label } = line.entry.row;
  const type = shownType(line.entry.row);
  const kind = isTotal(line.entry) ? 'total' : 'mean';
  const days = line.days.map((d) => ({
    day: shortDay(d.date),
    value: d.value,
    shown: d.value === null ? '' : isTag(line.entry.row) ? (d.value === 1 ? 'yes' : 'no') : formatValue(type, d.value),
  }));
  return html`<li class="weekline"><a href="${attributeHref(name)}">${label}</a> ${weekSparkline(`${label}, the last 7 days`, days)}
<span class="figures"><strong>${figure(line, line.thisWeek)}</strong> <span class="muted">${kind} this week · last week ${figure(line, line.lastWeek)} · usual ${figure(line, line.usual)}</span></span></li>`;
}

/** A group's heading, left out when its one line already says it ("Mood" over "Mood"). */
function groupHeading(group: string, list: readonly WeekLine[]): Html {
  return list.length === 1 && list[0].entry.row.label === group ? html`` : html`<h3>${group}</h3>`;
}

/** The week at a glance for the seven days ending `date`, or nothing when nothing is charted. */
export function weekGlance(rows: readonly AttributeRowWithValues[], date: string): Html {
  const lines = rows.filter((e) => isCharted(shownType(e.row)) || isTag(e.row)).map((e) => lineOf(e, date));
  if (lines.length === 0) return html``;
  const groups = new Map<string, WeekLine[]>();
  for (const line of lines) groups.set(line.entry.row.group_label, [...(groups.get(line.entry.row.group_label) ?? []), line]);
  const weekDays = Array.from({ length: WEEK }, (_, i) => addDays(date, i - WEEK + 1));
  return html`<section class="card week" aria-labelledby="week-title"><h2 id="week-title">Your week</h2>
<nav aria-label="Days of the week" class="weekdays-nav">${weekDays.map((d) => html`<a href="/data?date=${d}"${d === date ? html` aria-current="date"` : ''}>${shortDay(d)} ${Number(d.slice(8))}</a>`)}</nav>
${[...groups.entries()].map(([group, list]) => html`${groupHeading(group, list)}<ul class="weeklines">${list.sort((a, b) => b.change - a.change).map(row)}</ul>`)}</section>`;
}
