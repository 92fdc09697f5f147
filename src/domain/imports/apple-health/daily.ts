/**
 * A day's value from many records, kept as running totals per day (and per source for sums):
 * memory grows with days x sources, never with records (docs/apple-health.md, "Memory").
 */
import type { DailyRule } from './mappings';

/** One day's result: the value before rounding, and a few words on where it came from. */
export interface DayResult {
  date: string;
  value: number;
  /** Read by a person in the preview or a problem: "from Apple Watch, 412 records". */
  from: string;
}

export interface DayAccumulator {
  add(date: string, source: string, value: number, epochMs: number): void;
  /** Each day that had a record, in date order. */
  results(): DayResult[];
}

const byDate = (a: DayResult, b: DayResult): number => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

const records = (n: number): string => `${n} record${n === 1 ? '' : 's'}`;

interface SourceTotal {
  total: number;
  records: number;
}

/**
 * Totals per day per source; the day's value is the largest source's total, ties to the source
 * name first in order (so the same file always gives the same answer).
 */
export class SumBySource implements DayAccumulator {
  private readonly days = new Map<string, Map<string, SourceTotal>>();

  add(date: string, source: string, value: number): void {
    let sources = this.days.get(date);
    if (sources === undefined) this.days.set(date, (sources = new Map()));
    const t = sources.get(source);
    if (t === undefined) sources.set(source, { total: value, records: 1 });
    else {
      t.total += value;
      t.records += 1;
    }
  }

  results(): DayResult[] {
    const out: DayResult[] = [];
    for (const [date, sources] of this.days) {
      const [source, best] = largest(sources);
      const others = sources.size > 1 ? `; ${sources.size - 1} other source${sources.size > 2 ? 's' : ''} left out` : '';
      out.push({ date, value: best.total, from: `from ${source}, ${records(best.records)}${others}` });
    }
    return out.sort(byDate);
  }
}

function largest(sources: Map<string, SourceTotal>): [string, SourceTotal] {
  let pick: [string, SourceTotal] | undefined;
  for (const entry of sources) {
    if (pick === undefined || entry[1].total > pick[1].total || (entry[1].total === pick[1].total && entry[0] < pick[0])) pick = entry;
  }
  return pick as [string, SourceTotal];
}

interface Stats {
  sum: number;
  max: number;
  n: number;
}

/** Mean or maximum over every sample of the day, whatever its source. */
class Samples implements DayAccumulator {
  private readonly days = new Map<string, Stats>();

  constructor(private readonly pick: 'mean' | 'max') {}

  add(date: string, _source: string, value: number): void {
    const s = this.days.get(date);
    if (s === undefined) this.days.set(date, { sum: value, max: value, n: 1 });
    else {
      s.sum += value;
      s.n += 1;
      if (value > s.max) s.max = value;
    }
  }

  results(): DayResult[] {
    const out: DayResult[] = [];
    for (const [date, s] of this.days) {
      out.push({ date, value: this.pick === 'mean' ? s.sum / s.n : s.max, from: `${this.pick} of ${records(s.n)}` });
    }
    return out.sort(byDate);
  }
}

interface Reading {
  epochMs: number;
  value: number;
  source: string;
}

/** The day's reading with the latest time (a later one of the same time from the file wins). */
class Latest implements DayAccumulator {
  private readonly days = new Map<string, Reading>();

  add(date: string, source: string, value: number, epochMs: number): void {
    const r = this.days.get(date);
    if (r === undefined || epochMs >= r.epochMs) this.days.set(date, { epochMs, value, source });
  }

  results(): DayResult[] {
    const out: DayResult[] = [];
    for (const [date, r] of this.days) {
      out.push({ date, value: r.value, from: `the day's latest reading, from ${r.source}` });
    }
    return out.sort(byDate);
  }
}

export function accumulatorFor(rule: DailyRule): DayAccumulator {
  switch (rule) {
    case 'sum':
      return new SumBySource();
    case 'mean':
    case 'max':
      return new Samples(rule);
    case 'latest':
      return new Latest();
  }
}
