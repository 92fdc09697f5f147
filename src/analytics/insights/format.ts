/**
 * Values and sentences of insights: numbers in the attribute's unit as a person reads them
 * (12,304; 7h 32m; 23:15; 22%; 4.2 km), and the HTML form of a sentence (escaped, the key number
 * in <strong>).
 */
import { VALUE_TYPES } from '../../db/catalogue-value-types';
import { isTagAttribute, type SeriesAttribute } from '../series';

const UNIT_SYMBOLS: Record<string, string> = {
  km: 'km',
  kg: 'kg',
  kJ: 'kJ',
  g: 'g',
  mg: 'mg',
  ml: 'ml',
  'degrees Celsius': '°C',
  'km/hr': 'km/h',
  'inches of water per hour': 'in/h',
};

const number = (value: number, digits: number) => value.toLocaleString('en-US', { maximumFractionDigits: digits });

function clock(minutes: number): string {
  const m = ((Math.round(minutes) % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** A value of `attribute` as text. */
export function formatValue(attribute: SeriesAttribute, value: number): string {
  switch (attribute.valueType) {
    case VALUE_TYPES.period: {
      if (attribute.unit !== 'minutes') return number(value, 1);
      const total = Math.round(value);
      const h = Math.floor(total / 60);
      return h > 0 ? `${h}h ${String(total % 60).padStart(2, '0')}m` : `${total}m`;
    }
    case VALUE_TYPES.timeOfDay:
      return clock(value);
    case VALUE_TYPES.timeFromMidday:
      return clock(value + 720);
    case VALUE_TYPES.percentage:
      return `${number(value * 100, 1)}%`;
    case VALUE_TYPES.boolean:
      return value >= 0.5 ? 'yes' : 'no';
    default: {
      const symbol = attribute.unit ? UNIT_SYMBOLS[attribute.unit] : undefined;
      const text = number(value, Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
      return symbol ? `${text} ${symbol}` : text;
    }
  }
}

/** A difference of two times of day, in words ("25 min later"). */
export function formatMinutesApart(minutes: number): string {
  const m = Math.round(Math.abs(minutes));
  const span = m >= 60 ? `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m` : `${m} min`;
  return `${span} ${minutes >= 0 ? 'later' : 'earlier'}`;
}

/** Times of day compare by minutes apart, not by ratio. */
export function isTimeOfDay(attribute: SeriesAttribute): boolean {
  return attribute.valueType === VALUE_TYPES.timeOfDay || attribute.valueType === VALUE_TYPES.timeFromMidday;
}

/** Measures: numeric attributes that are neither tags nor yes/no values. */
export function isMeasure(attribute: SeriesAttribute): boolean {
  return !isTagAttribute(attribute) && attribute.valueType !== VALUE_TYPES.boolean;
}

/** The label as a sentence shows it (tags keep underscores for spaces). */
export function labelOf(attribute: SeriesAttribute): string {
  return attribute.label.replace(/_/g, ' ');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * A sentence in both forms from parts: plain strings, and `{ strong: text }` for the number that
 * matters. The text joins the parts; the HTML escapes them and wraps the strong ones.
 */
export function sentence(...parts: Array<string | { strong: string }>): { text: string; html: string } {
  const text = parts.map((p) => (typeof p === 'string' ? p : p.strong)).join('');
  const html = parts.map((p) => (typeof p === 'string' ? escapeHtml(p) : `<strong>${escapeHtml(p.strong)}</strong>`)).join('');
  return { text, html: `<p>${html}</p>` };
}

const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export function weekdayName(weekday: number): string {
  return WEEKDAY_NAMES[weekday];
}

/** "November 2026" for "2026-11". */
export function monthName(month: string): string {
  const [year, m] = month.split('-').map(Number);
  return `${MONTH_NAMES[m - 1]} ${year}`;
}

/** "Monday 16 November 2026" style short date: "16 November 2026". */
export function dayName(date: string): string {
  const [year, m, d] = date.split('-').map(Number);
  return `${d} ${MONTH_NAMES[m - 1]} ${year}`;
}
