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
import { scaleBand, scaleLinear, type ScaleBand, type ScaleLinear } from 'd3-scale';
import { area, line } from 'd3-shape';
import { CHAR_WIDTH, dayLabelY, dayTicks, marginFor } from './chart-axes';
import { html, type Html } from './html';

/**
 * One day of a series; null when the day has no value. A week of a year's chart is one point too:
 * its first day, its mean as `value`, its lowest and highest day as `low` and `high`, and how many
 * days had a value (docs/pages.md, "Charts": a year is drawn by week with its range).
 */
export interface DayPoint {
  date: string;
  value: number | null;
  low?: number;
  high?: number;
  days?: number;
}

/**
 * How a series is drawn (docs/pages.md: line for quantities, bars for counts, dots for scales and
 * times, ticks for yes/no days).
 */
export type ChartKind = 'line' | 'bars' | 'dots' | 'ticks';

export interface ChartOptions {
  title: string;
  desc: string;
  points: readonly DayPoint[];
  kind: ChartKind;
  /** How an axis label or a value reads (a time of day as HH:MM). */
  format: (value: number) => string;
  /** A fixed value axis (a clock fitted to the times, 1-9, 0-7 days a week); otherwise from 0 (bars) or the data's range. */
  domain?: readonly [number, number];
  /** Axis ticks for a fixed domain. */
  ticks?: readonly number[];
  /** Horizontal lines marked on the chart (the median, the average); `drawn: false` keeps one out of the picture (too close to another to tell apart). */
  marks?: ReadonlyArray<{ value: number; label: string; drawn?: boolean }>;
  width?: number;
  height?: number;
  /** The least left margin, so charts drawn one above the other line their days up. */
  minLeft?: number;
}

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

export function shortDate(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** The key of a chart's marked lines (drawn below it, so labels never cover the data), each in its line's colour and dash. */
export function marksKey(marks: ChartOptions['marks']): Html {
  if (!marks || marks.length === 0) return html``;
  return html`<p class="marks muted">${marks.map((m, i) => (m.drawn === false ? html`<span class="mark-text">${m.label}</span> ` : html`<span class="key-line mark${i}" aria-hidden="true"></span> <span class="mark-text">${m.label}</span> `))}</p>`;
}

/** The marks worth drawing: a second line within 3 % of the axis of the first is left out (it would sit on top of it). */
export function separateMarks(
  marks: Array<{ value: number; label: string }>,
  values: readonly number[],
): Array<{ value: number; label: string; drawn?: boolean }> {
  const span = values.length > 0 ? Math.max(...values) - Math.min(...values) || 1 : 1;
  return marks.map((m, i) =>
    i > 0 && Math.abs(m.value - marks[0].value) < span * 0.03
      ? { ...m, label: `${m.label} (about the same as the ${marks[0].label.split(' ')[0].toLowerCase()}: one line drawn)`, drawn: false }
      : m,
  );
}

type Present = DayPoint & { value: number };

/** A chart of one series over days (or weeks), with its value axis, day labels and marked lines (their key: `marksKey`). */
export function dayChart(options: ChartOptions): Html {
  const width = options.width ?? 720;
  const values = options.points.flatMap((p) => (p.value === null ? [] : [p.value, p.low ?? p.value, p.high ?? p.value]));
  const ticksKind = options.kind === 'ticks';
  const height = options.height ?? (ticksKind ? 110 : 240);
  const y = scaleLinear().domain(valueDomain(options, values));
  if (!options.domain) y.nice();
  const yTicks = ticksKind ? [] : (options.ticks ?? y.ticks(4));
  const fitted = marginFor(yTicks.map(options.format));
  const margin = { ...fitted, left: Math.max(fitted.left, options.minLeft ?? 0) };
  y.range([height - margin.bottom, margin.top]);
  const x = scaleBand<string>()
    .domain(options.points.map((p) => p.date))
    .range([margin.left, width - margin.right])
    .padding(0.15);
  const centre = (date: string) => (x(date) ?? 0) + x.bandwidth() / 2;
  const present = options.points.filter((p): p is Present => p.value !== null);
  const shown = (options.marks ?? []).map((m, i) => ({ ...m, i })).filter((m) => m.drawn !== false);
  // Each day label centred on its day; only days whose label fits between the edges at the phone font are picked.
  const half = (p: DayPoint) => (shortDate(p.date).length * CHAR_WIDTH) / 2;
  const labels = dayTicks(options.points, (p) => centre(p.date) - half(p) >= margin.left - 8 && centre(p.date) + half(p) <= width - 2);
  const labelX = (p: DayPoint) => Math.min(Math.max(centre(p.date), half(p) + 2), width - half(p) - 2);
  return html`<svg class="chart${ticksKind ? ' ticks' : ''}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${idOf(options.title)}-t ${idOf(options.title)}-d" preserveAspectRatio="xMidYMid meet">
<title id="${idOf(options.title)}-t">${options.title}</title><desc id="${idOf(options.title)}-d">${options.desc}</desc>
<g class="axis">${yTicks.map((t) => html`<line x1="${margin.left}" x2="${width - margin.right}" y1="${n(y(t))}" y2="${n(y(t))}" class="grid"></line><text x="${margin.left - 6}" y="${n(y(t) + 4)}" text-anchor="end">${options.format(t)}</text>`)}
${labels.map((p) => html`<text x="${n(labelX(p))}" y="${dayLabelY(height)}" text-anchor="middle">${shortDate(p.date)}</text>`)}</g>
${series(options, present, { x, y, centre })}
${shown.map((m) => html`<line class="mark mark${m.i}" data-value="${m.value}" x1="${margin.left}" x2="${width - margin.right}" y1="${n(y(m.value))}" y2="${n(y(m.value))}"></line>`)}
</svg>`;
}

interface Scales {
  x: ScaleBand<string>;
  y: ScaleLinear<number, number>;
  centre: (date: string) => number;
}

/** The data attributes the tests read: the day (or week) and its value, with a week's range and count. */
function dataOf(p: Present): Html {
  return html`data-date="${p.date}" data-value="${Math.round(p.value * 1000) / 1000}"${p.low === undefined ? '' : html` data-low="${p.low}" data-high="${p.high}" data-days="${p.days}"`}`;
}

/** The drawn values: bars, a line with its dots, dots, or ticks; a week's range as a band (line) or whiskers (bars, dots). */
function series(options: ChartOptions, present: Present[], { x, y, centre }: Scales): Html {
  const floor = y(Math.max(0, y.domain()[0]));
  const whiskers = present.some((p) => p.low !== undefined) && options.kind !== 'line';
  const ranges = whiskers
    ? present.map(
        (p) =>
          html`<line class="range" x1="${n(centre(p.date))}" x2="${n(centre(p.date))}" y1="${n(y(p.low ?? p.value))}" y2="${n(y(p.high ?? p.value))}"></line>`,
      )
    : [];
  if (options.kind === 'ticks') {
    const [top, bottom] = y.range().reverse();
    return html`<g class="series">${present.map((p) => (p.value >= 1 ? html`<rect class="tick" ${dataOf(p)} x="${n(x(p.date) ?? 0)}" width="${n(Math.max(2, x.bandwidth()))}" y="${n(top)}" height="${n(bottom - top)}"></rect>` : html`<rect class="untick" ${dataOf(p)} x="${n(x(p.date) ?? 0)}" width="${n(Math.max(2, x.bandwidth()))}" y="${n(bottom - 3)}" height="3"></rect>`))}</g>`;
  }
  if (options.kind === 'bars') {
    return html`<g class="series">${present.map((p) => html`<rect class="bar" ${dataOf(p)} x="${n(x(p.date) ?? 0)}" width="${n(Math.max(1, x.bandwidth()))}" y="${n(Math.min(y(p.value), floor))}" height="${n(Math.abs(floor - y(p.value)))}"></rect>`)}${ranges}</g>`;
  }
  const path =
    options.kind === 'line'
      ? line<DayPoint>()
          .defined((p) => p.value !== null)
          .x((p) => centre(p.date))
          .y((p) => y(p.value ?? 0))(options.points as DayPoint[])
      : null;
  const band = options.kind === 'line' && present.some((p) => p.low !== undefined) ? bandPath(options.points, { x, y, centre }) : null;
  const radius = Math.max(2, Math.min(5, x.bandwidth() / 2));
  return html`<g class="series">${band ? html`<path class="band" d="${band}"></path>` : ''}${ranges}${path ? html`<path class="line" d="${path}"></path>` : ''}${present.map((p) => html`<circle class="point" ${dataOf(p)} cx="${n(centre(p.date))}" cy="${n(y(p.value))}" r="${n(radius)}"></circle>`)}</g>`;
}

/** The band from each week's lowest to highest day, broken where a week has no value. */
function bandPath(points: readonly DayPoint[], { y, centre }: Scales): string | null {
  return area<DayPoint>()
    .defined((p) => p.value !== null)
    .x((p) => centre(p.date))
    .y0((p) => y(p.low ?? p.value ?? 0))
    .y1((p) => y(p.high ?? p.value ?? 0))(points as DayPoint[]);
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
  const width = 480;
  const height = 400;
  const xs = options.pairs.map((p) => p.x);
  const ys = options.pairs.map((p) => p.y);
  const span = (values: number[]): [number, number] =>
    values.length === 0
      ? [0, 1]
      : Math.min(...values) === Math.max(...values)
        ? [Math.min(...values) - 1, Math.max(...values) + 1]
        : [Math.min(...values), Math.max(...values)];
  const y = scaleLinear().domain(span(ys)).nice();
  const yTicks = y.ticks(4);
  // Room for the value labels (left), two rows under the plot (x labels, then what x is) and the y name on top.
  const margin = marginFor(yTicks.map(options.formatY));
  const top = margin.top + 30;
  const bottom = height - 64;
  y.range([bottom, top]);
  const x = scaleLinear()
    .domain(span(xs))
    .range([margin.left + 8, width - margin.right - 24])
    .nice();
  const fit = (text: string) => {
    const most = Math.floor((width - 8) / CHAR_WIDTH) - 2;
    return text.length > most ? `${text.slice(0, most - 1)}…` : text;
  };
  return html`<svg class="chart scatter" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${idOf(options.title)}-t ${idOf(options.title)}-d">
<title id="${idOf(options.title)}-t">${options.title}</title><desc id="${idOf(options.title)}-d">${options.desc}</desc>
<g class="axis">${yTicks.map((t) => html`<line x1="${margin.left}" x2="${width - margin.right}" y1="${n(y(t))}" y2="${n(y(t))}" class="grid"></line><text x="${margin.left - 6}" y="${n(y(t) + 4)}" text-anchor="end">${options.formatY(t)}</text>`)}
${x.ticks(4).map((t) => html`<text x="${n(x(t))}" y="${bottom + 30}" text-anchor="middle">${options.formatX(t)}</text>`)}
<text x="${width / 2}" y="${height - 8}" text-anchor="middle">${fit(`${options.xLabel} →`)}</text><text x="4" y="${margin.top + 4}" text-anchor="start">${fit(`↑ ${options.yLabel}`)}</text></g>
<g class="series">${options.pairs.map((p) => html`<circle class="point" data-date="${p.date}" data-x="${p.x}" data-y="${p.y}" cx="${n(x(p.x))}" cy="${n(y(p.y))}" r="4"></circle>`)}</g>
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
