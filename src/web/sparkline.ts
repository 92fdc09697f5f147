/**
 * The week's small charts on /data (docs/pages.md, "The week at a glance"): seven days as a tiny
 * line of points, missing days left as gaps, with the values in words as the text alternative.
 * Separate from charts.ts (the attribute pages' charts), deliberately small.
 */
import { html, type Html } from './html';

const WIDTH = 84;
const HEIGHT = 24;
const PAD = 3;

/** One day of the small chart: its short name and its value (null: nothing that day). */
export interface SparkDay {
  day: string;
  value: number | null;
  /** The value as the person reads it. */
  shown: string;
}

/** The small chart of `days` (oldest first), with `label` and each day's value as its text alternative. */
export function weekSparkline(label: string, days: readonly SparkDay[]): Html {
  const numbers = days.map((d) => d.value).filter((v): v is number => v !== null);
  const min = Math.min(...numbers, 0);
  const max = Math.max(...numbers, min + 1);
  const x = (i: number) => PAD + (i * (WIDTH - 2 * PAD)) / Math.max(days.length - 1, 1);
  const y = (v: number) => HEIGHT - PAD - ((v - min) * (HEIGHT - 2 * PAD)) / (max - min);
  const words = days.map((d) => `${d.day} ${d.shown === '' ? 'no value' : d.shown}`).join(', ');
  const segments: string[] = [];
  let current = '';
  days.forEach((d, i) => {
    if (d.value === null) {
      if (current) segments.push(current);
      current = '';
      return;
    }
    current += `${current ? ' L' : 'M'}${x(i).toFixed(1)} ${y(d.value).toFixed(1)}`;
  });
  if (current) segments.push(current);
  return html`<svg class="weekspark" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${label}: ${words}"><title>${label}: ${words}</title>
${segments.map((d) => html`<path d="${d}" fill="none" stroke="currentColor" stroke-width="1.5"/>`)}
${days.map((d, i) => (d.value === null ? '' : html`<circle cx="${x(i).toFixed(1)}" cy="${y(d.value).toFixed(1)}" r="${i === days.length - 1 ? 2.5 : 1.5}" fill="currentColor"/>`))}
</svg>`;
}
