/**
 * Medians by weekday as a heat map: one row per attribute, each cell coloured in five steps from
 * that row's lowest to its highest weekday (rows are compared with themselves: steps and sleep
 * have different units), with the median written in the cell so the colour is never the only
 * way to read it.
 */
import type { AverageObject } from '../../domain/derived/averages';
import { html, type Html } from '../html';
import { attributeHref } from '../links';
import { formatValue } from '../values';
import { roundFor } from '../series-view';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/**
 * What the colours mean, as a key of the five steps themselves: the dark theme draws higher values
 * lighter and the light theme darker, so the caption shows the colours instead of naming them.
 */
export function heatCaption(): Html {
  return html`in each row the colour goes from the lowest to the highest weekday: <span class="heatkey">lowest <span class="key heat1"></span><span class="key heat2"></span><span class="key heat3"></span><span class="key heat4"></span><span class="key heat5"></span> highest</span>.`;
}

function heat(value: number, low: number, high: number): string {
  if (high === low) return 'heat3';
  return `heat${Math.min(5, 1 + Math.floor(((value - low) / (high - low)) * 5))}`;
}

export function weekdayTable(rows: ReadonlyArray<{ label: string; name?: string; valueType: number; average: AverageObject }>): Html {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Medians by weekday"><table class="weekdays">
<thead><tr><th scope="col">Attribute</th><th scope="col">Overall</th>${WEEKDAYS.map((d) => html`<th scope="col">${d.slice(0, 3).replace(/^./, (c) => c.toUpperCase())}</th>`)}</tr></thead>
<tbody>${rows.map(({ label, name, valueType, average }) => {
    const values = WEEKDAYS.map((d) => average[d]);
    const low = Math.min(...values);
    const high = Math.max(...values);
    return html`<tr id="average-${average.attribute}"><th scope="row">${name ? html`<a href="${attributeHref(name)}">${label}</a>` : label}</th><td>${formatValue(valueType, roundFor(valueType, average.overall))}</td>${WEEKDAYS.map((d) => html`<td class="${heat(average[d], low, high)}">${formatValue(valueType, roundFor(valueType, average[d]))}</td>`)}</tr>`;
  })}</tbody></table></div>`;
}

/**
 * Tags' days by weekday: on how many of the last twelve of each weekday each was ticked, and its
 * days per week overall (a median of yes/no days says nothing: docs/pages.md, "Tags").
 */
export function tagWeekdayTable(rows: ReadonlyArray<{ label: string; name?: string; points: ReadonlyArray<{ date: string; value: number | null }> }>): Html {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Days ticked by weekday"><table class="weekdays">
<thead><tr><th scope="col">Tag</th><th scope="col">Days a week</th>${WEEKDAYS.map((d) => html`<th scope="col">${d.slice(0, 3).replace(/^./, (c) => c.toUpperCase())}</th>`)}</tr></thead>
<tbody>${rows.map(({ label, name, points }) => {
    const recent = points.slice(-84);
    const byDay = WEEKDAYS.map((_, i) => recent.filter((p) => (new Date(`${p.date}T12:00:00Z`).getUTCDay() + 6) % 7 === i));
    const ticked = byDay.map((days) => days.filter((p) => (p.value ?? 0) >= 1).length);
    const perWeek = recent.length === 0 ? 0 : (ticked.reduce((a, b) => a + b, 0) / recent.length) * 7;
    return html`<tr><th scope="row">${name ? html`<a href="${attributeHref(name)}">${label}</a>` : label}</th><td>${perWeek.toFixed(1)}</td>${ticked.map((count, i) => html`<td class="${heat(count, Math.min(...ticked), Math.max(...ticked))}">${count} of ${byDay[i].length}</td>`)}</tr>`;
  })}</tbody></table></div>`;
}
