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
