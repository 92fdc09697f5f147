/**
 * Charts drawn on the server as inline SVG (the pages run no script: `script-src 'none'`). Scales
 * and paths come from d3-scale and d3-shape, used in Node. Every chart is an `<svg role="img">`
 * with a <title> and a <desc> saying what it shows; the pages put the numbers beside it as a table
 * (docs/pages.md, "Charts").
 *
 * Days without a value are not drawn: a line breaks there, a bar or a dot is absent, so a gap in
 * the data is a gap in the picture. Each drawn day carries `data-date` and `data-value`, which the
 * tests read to compare a chart with the data it was drawn from.
 */
import { scaleBand, scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';
import { html, type Html } from './html';

/** One day of a series; null when the day has no value. */
export interface DayPoint {
  date: string;
  value: number | null;
}

/** How a series is drawn (docs/pages.md: line for quantities, bars for counts, dots for scales, yes/no and times). */
export type ChartKind = 'line' | 'bars' | 'dots';

export interface ChartOptions {
  title: string;
  desc: string;
  points: readonly DayPoint[];
  kind: ChartKind;
  /** How an axis label or a value reads (a time of day as HH:MM). */
  format: (value: number) => string;
  /** A fixed value axis (a 24-hour clock, 1-9, 0-1); otherwise from 0 (bars) or the data's range. */
  domain?: readonly [number, number];
  /** Axis ticks for a fixed domain (every 6 hours on a clock). */
  ticks?: readonly number[];
  /** A horizontal line marked on the chart (the median). */
  marks?: ReadonlyArray<{ value: number; label: string }>;
  width?: number;
  height?: number;
}

const MARGIN = { top: 12, right: 12, bottom: 30, left: 64 };

/** A number for an SVG attribute: short, and never "NaN". */
function n(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 10) / 10) : '0';
}

function valueDomain(options: ChartOptions, values: number[]): [number, number] {
  if (options.domain) return [options.domain[0], options.domain[1]];
  const low = Math.min(...values, ...(options.marks ?? []).map((m) => m.value));
  const high = Math.max(...values, ...(options.marks ?? []).map((m) => m.value));
  if (values.length === 0) return [0, 1];
  const from = options.kind === 'bars' ? Math.min(0, low) : low;
  return from === high ? [from - 1, high + 1] : [from, high];
}

/** Day labels under the chart: the first, the middle and the last day. */
function dayTicks(points: readonly DayPoint[]): DayPoint[] {
  if (points.length === 0) return [];
  const picks = new Set([0, Math.floor((points.length - 1) / 2), points.length - 1]);
  return [...picks].map((i) => points[i]);
}

export function shortDate(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** The key of a chart's marked lines (drawn below it, so labels never cover the data). */
export function marksKey(marks: ChartOptions['marks']): Html {
  if (!marks || marks.length === 0) return html``;
  return html`<p class="marks muted">${marks.map((m, i) => html`<span class="key-line mark${i}" aria-hidden="true"></span> ${m.label} `)}</p>`;
}

/** A chart of one series over days, with its value axis, day labels and marked lines (their key: `marksKey`). */
export function dayChart(options: ChartOptions): Html {
  const width = options.width ?? 720;
  const height = options.height ?? 240;
  const values = options.points.map((p) => p.value).filter((v): v is number => v !== null);
  const x = scaleBand<string>()
    .domain(options.points.map((p) => p.date))
    .range([MARGIN.left, width - MARGIN.right])
    .padding(0.15);
  const y = scaleLinear()
    .domain(valueDomain(options, values))
    .range([height - MARGIN.bottom, MARGIN.top]);
  if (!options.domain) y.nice();
  const centre = (date: string) => (x(date) ?? 0) + x.bandwidth() / 2;
  const present = options.points.filter((p): p is { date: string; value: number } => p.value !== null);
  const yTicks = options.ticks ?? y.ticks(4);
  const path =
    options.kind === 'line'
      ? line<DayPoint>()
          .defined((p) => p.value !== null)
          .x((p) => centre(p.date))
          .y((p) => y(p.value ?? 0))(options.points as DayPoint[])
      : null;
  const radius = Math.max(1.5, Math.min(4, x.bandwidth() / 2));
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${idOf(options.title)}-t ${idOf(options.title)}-d" preserveAspectRatio="xMidYMid meet">
<title id="${idOf(options.title)}-t">${options.title}</title><desc id="${idOf(options.title)}-d">${options.desc}</desc>
<g class="axis">${yTicks.map((t) => html`<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${n(y(t))}" y2="${n(y(t))}" class="grid"></line><text x="${MARGIN.left - 6}" y="${n(y(t) + 4)}" text-anchor="end">${options.format(t)}</text>`)}
${dayTicks(options.points).map((p, i, all) => html`<text x="${n(i === 0 ? MARGIN.left : i === all.length - 1 ? width - MARGIN.right : centre(p.date))}" y="${height - 8}" text-anchor="${i === 0 ? 'start' : i === all.length - 1 ? 'end' : 'middle'}">${shortDate(p.date)}</text>`)}</g>
${
  options.kind === 'bars'
    ? html`<g class="series">${present.map((p) => html`<rect class="bar" data-date="${p.date}" data-value="${p.value}" x="${n(x(p.date) ?? 0)}" width="${n(Math.max(1, x.bandwidth()))}" y="${n(Math.min(y(p.value), y(Math.max(0, y.domain()[0]))))}" height="${n(Math.abs(y(Math.max(0, y.domain()[0])) - y(p.value)))}"></rect>`)}</g>`
    : html`<g class="series">${path ? html`<path class="line" d="${path}"></path>` : ''}${present.map((p) => html`<circle class="point" data-date="${p.date}" data-value="${p.value}" cx="${n(centre(p.date))}" cy="${n(y(p.value))}" r="${n(radius)}"></circle>`)}</g>`
}
${(options.marks ?? []).map((m, i) => html`<line class="mark mark${i}" data-value="${m.value}" x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${n(y(m.value))}" y2="${n(y(m.value))}"></line>`)}
</svg>`;
}

/** An id for a chart's title and description, from its title (charts on one page have different titles). */
function idOf(title: string): string {
  return `chart-${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 60)}`;
}

/**
 * A small line of the last days beside an attribute: no axes; the text alternative says how many
 * days have values and the lowest and highest of them.
 */
export function sparkline(label: string, points: readonly DayPoint[], format: (value: number) => string): Html {
  const width = 120;
  const height = 28;
  const values = points.map((p) => p.value).filter((v): v is number => v !== null);
  const x = scaleLinear()
    .domain([0, Math.max(1, points.length - 1)])
    .range([2, width - 2]);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const y = scaleLinear()
    .domain(values.length === 0 ? [0, 1] : low === high ? [low - 1, high + 1] : [low, high])
    .range([height - 3, 3]);
  const path = line<DayPoint>()
    .defined((p) => p.value !== null)
    .x((_, i) => x(i))
    .y((p) => y(p.value ?? 0))(points as DayPoint[]);
  const summary =
    values.length === 0
      ? `${label}: no values in the last ${points.length} days`
      : `${label}: ${values.length} of the last ${points.length} days have a value, from ${format(low)} to ${format(high)}`;
  return html`<svg class="spark" viewBox="0 0 ${width} ${height}" role="img" aria-label="${summary}"><title>${summary}</title>${path ? html`<path class="line" d="${path}"></path>` : ''}${points.map((p, i) => (p.value === null ? '' : html`<circle class="point" data-date="${p.date}" data-value="${p.value}" cx="${n(x(i))}" cy="${n(y(p.value))}" r="1.4"></circle>`))}</svg>`;
}

/** Pairs of values of the same days, one dot each. */
export function scatter(options: {
  title: string;
  desc: string;
  pairs: ReadonlyArray<{ date: string; x: number; y: number }>;
  xLabel: string;
  yLabel: string;
  formatX: (v: number) => string;
  formatY: (v: number) => string;
}): Html {
  const width = 420;
  const height = 320;
  const xs = options.pairs.map((p) => p.x);
  const ys = options.pairs.map((p) => p.y);
  const span = (values: number[]): [number, number] =>
    values.length === 0
      ? [0, 1]
      : Math.min(...values) === Math.max(...values)
        ? [Math.min(...values) - 1, Math.max(...values) + 1]
        : [Math.min(...values), Math.max(...values)];
  const x = scaleLinear()
    .domain(span(xs))
    .range([MARGIN.left, width - MARGIN.right])
    .nice();
  const y = scaleLinear()
    .domain(span(ys))
    .range([height - MARGIN.bottom - 14, MARGIN.top + 18])
    .nice();
  return html`<svg class="chart scatter" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${idOf(options.title)}-t ${idOf(options.title)}-d">
<title id="${idOf(options.title)}-t">${options.title}</title><desc id="${idOf(options.title)}-d">${options.desc}</desc>
<g class="axis">${y.ticks(4).map((t) => html`<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${n(y(t))}" y2="${n(y(t))}" class="grid"></line><text x="${MARGIN.left - 6}" y="${n(y(t) + 4)}" text-anchor="end">${options.formatY(t)}</text>`)}
${x.ticks(4).map((t) => html`<text x="${n(x(t))}" y="${height - 26}" text-anchor="middle">${options.formatX(t)}</text>`)}
<text x="${(MARGIN.left + width - MARGIN.right) / 2}" y="${height - 6}" text-anchor="middle">${options.xLabel} →</text><text x="${MARGIN.left}" y="14" text-anchor="start">↑ ${options.yLabel}</text></g>
<g class="series">${options.pairs.map((p) => html`<circle class="point" data-date="${p.date}" data-x="${p.x}" data-y="${p.y}" cx="${n(x(p.x))}" cy="${n(y(p.y))}" r="3.5"></circle>`)}</g>
</svg>`;
}

/** A bar from the middle for a correlation coefficient r in [-1, 1]: right for together, left for opposite. */
export function correlationBar(r: number): Html {
  const width = 120;
  const middle = width / 2;
  const length = Math.min(1, Math.abs(r)) * middle;
  const words = `r = ${r.toFixed(2)}, ${r >= 0 ? 'rising together' : 'one rises as the other falls'}`;
  return html`<svg class="rbar" viewBox="0 0 ${width} 14" role="img" aria-label="${words}"><title>${words}</title><rect class="track" x="0" y="3" width="${width}" height="8"></rect><rect class="${r >= 0 ? 'pos' : 'neg'}" x="${n(r >= 0 ? middle : middle - length)}" y="3" width="${n(length)}" height="8"></rect><line x1="${middle}" x2="${middle}" y1="0" y2="14"></line></svg>`;
}
