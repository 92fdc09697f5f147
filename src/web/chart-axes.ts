/**
 * Where a chart's labels go and how much room they get (docs/pages.md, "Charts"). The charts are
 * drawn in a 720-unit-wide viewBox and shrink with the screen; on a phone the stylesheet doubles
 * the labels' font size (24 units, about 11 px on a 390 px screen), so every margin here is sized
 * for that larger font: a label like "10000" or "12:00" is never cut off at the edge.
 */

/** Width of one label character at the phone font (24 units; digits are about 0.55 em, with room to spare). */
export const CHAR_WIDTH = 14.5;
/** Height above the baseline of a label at the phone font. */
const ASCENT = 20;

export interface Margin {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** Margins that hold the value labels on the left and the day labels underneath, at the phone font. */
export function marginFor(valueLabels: readonly string[], withDayLabels = true): Margin {
  const longest = Math.max(1, ...valueLabels.map((label) => label.length));
  return { top: ASCENT, right: 14, bottom: withDayLabels ? 36 : 10, left: Math.ceil(longest * CHAR_WIDTH) + 12 };
}

/** The y of a day label's baseline: below the plot, inside the box for descenders. */
export function dayLabelY(height: number): number {
  return height - 8;
}

/**
 * Six evenly spaced days to label (every day when there are fewer), from the first to the last day
 * whose label, centred on it, fits inside the chart (`fits`), so labels never have to be pushed
 * in from the edges onto their neighbours.
 */
export function dayTicks<Day>(points: readonly Day[], fits: (point: Day) => boolean = () => true, count = 6): Day[] {
  const first = points.findIndex(fits);
  const last = points.length - 1 - [...points].reverse().findIndex(fits);
  const from = first < 0 || last - first < count - 1 ? 0 : first;
  const to = first < 0 || last - first < count - 1 ? points.length - 1 : last;
  if (to - from + 1 <= count) return points.slice(from, to + 1);
  const picks = new Set(Array.from({ length: count }, (_, i) => from + Math.round((i * (to - from)) / (count - 1))));
  return [...picks].map((i) => points[i]);
}

const CLOCK_STEPS = [30, 60, 120, 180, 240, 360];
const DAY = 24 * 60;

/**
 * A clock axis fitted to the person's own times (minutes, from midnight or from midday): from
 * half an hour before the earliest to half an hour after the latest, in whole half hours, with
 * ticks every 30 minutes to 6 hours so there are at most six of them.
 */
export function clockAxis(values: readonly number[]): { domain: [number, number]; ticks: number[] } {
  if (values.length === 0) return { domain: [0, DAY], ticks: [0, 6 * 60, 12 * 60, 18 * 60, DAY] };
  const low = Math.max(0, Math.floor((Math.min(...values) - 15) / 30) * 30);
  const high = Math.min(DAY, Math.ceil((Math.max(...values) + 15) / 30) * 30);
  const step = CLOCK_STEPS.find((s) => (high - low) / s <= 5) ?? 360;
  const ticks: number[] = [];
  for (let t = Math.ceil(low / step) * step; t <= high; t += step) ticks.push(t);
  return { domain: [low, high], ticks };
}

/** A duration axis in whole hours (7:00, 8:00...), so its labels read as times asleep or spent, never "8:20". */
export function hourAxis(values: readonly number[]): { domain: [number, number]; ticks: number[] } | Record<string, never> {
  if (values.length === 0) return {};
  const low = Math.floor(Math.min(...values) / 60) * 60;
  const high = Math.max(low + 60, Math.ceil(Math.max(...values) / 60) * 60);
  const step = [60, 120, 180, 240, 360, 720].find((s) => (high - low) / s <= 5) ?? 1440;
  const ticks: number[] = [];
  for (let t = Math.ceil(low / step) * step; t <= high; t += step) ticks.push(t);
  return { domain: [low, high], ticks };
}
