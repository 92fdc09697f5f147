/**
 * A month at a glance: one cell per day, Monday first, coloured by the day's value in five steps
 * between the month's lowest and highest value; a day without a value is visibly empty (a dashed
 * outline, no colour, "no value" for a screen reader); each past day links to that day on Your
 * data. Colours are classes of the page's stylesheet (inline styles are outside the CSP).
 */
import { addDays } from '../domain/time';
import { html, type Html } from './html';

/** Steps of colour (classes `heat1` .. `heat5`). */
const LEVELS = 5;

export interface CalendarDay {
  date: string;
  value: number | null;
  /** The value as a person reads it. */
  shown: string;
}

/** The days of a month, `YYYY-MM`. */
export function monthDays(month: string): string[] {
  const [year, m] = month.split('-').map(Number);
  const count = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return Array.from({ length: count }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`);
}

export function monthName(month: string): string {
  return new Date(`${month}-01T12:00:00Z`).toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

export function shiftMonth(month: string, by: number): string {
  const [year, m] = month.split('-').map(Number);
  const at = new Date(Date.UTC(year, m - 1 + by, 1));
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The level (1..5) of a value between low and high. */
function level(value: number, low: number, high: number): number {
  if (high === low) return 3;
  return Math.min(LEVELS, 1 + Math.floor(((value - low) / (high - low)) * LEVELS));
}

/** The calendar table of one month; `today` and later days are not links (nothing to see yet after today). */
export function monthCalendar(label: string, month: string, days: readonly CalendarDay[], today: string): Html {
  const values = days.map((d) => d.value).filter((v): v is number => v !== null);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const lead = (new Date(`${days[0].date}T12:00:00Z`).getUTCDay() + 6) % 7;
  const cells: Array<CalendarDay | null> = [...Array.from({ length: lead }, () => null), ...days];
  while (cells.length % 7 !== 0) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, i) => cells.slice(i * 7, i * 7 + 7));
  const cell = (day: CalendarDay | null): Html => {
    if (!day) return html`<td class="pad"></td>`;
    const number = Number(day.date.slice(8));
    const what = day.value === null ? 'no value' : day.shown;
    const cls = day.value === null ? 'empty' : `heat${level(day.value, low, high)}`;
    if (day.date > today) return html`<td class="future"><span>${number}</span></td>`;
    return html`<td class="${cls}" data-date="${day.date}"><a href="/data?date=${day.date}" aria-label="${number} ${monthName(month)}: ${what}" title="${what}">${number}</a></td>`;
  };
  return html`<table class="calendar" aria-label="${label}, ${monthName(month)}: one cell per day, coloured from lowest to highest as in the key below">
<thead><tr>${['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].map((d) => html`<th scope="col">${d}</th>`)}</tr></thead>
<tbody>${weeks.map((week) => html`<tr>${week.map(cell)}</tr>`)}</tbody></table>
<p class="legend muted"><span class="key empty"></span> no value <span class="key heat1"></span> lowest <span class="key heat3"></span> <span class="key heat5"></span> highest${values.length > 0 ? ` (${days.find((d) => d.value === low)?.shown} to ${days.find((d) => d.value === high)?.shown})` : ''}</p>`;
}

/** The first and last day of a month (for loading its values). */
export function monthBounds(month: string): { first: string; last: string; days: number } {
  const days = monthDays(month);
  return { first: days[0], last: addDays(days[0], days.length - 1), days: days.length };
}
