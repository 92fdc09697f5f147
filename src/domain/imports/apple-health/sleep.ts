/**
 * Sleep analysis records (in bed, asleep and its stages, awake) made into nights
 * (docs/apple-health.md, "Sleep"). A night belongs to the day it ends on: a record ending at
 * 18:00 or later (its own offset) starts the next day's night, so a night that crosses midnight
 * stays whole. Each day keeps merged intervals per source; the day's figures all come from one
 * source, the one that saw the most sleep, so a watch and a phone never add up.
 */
import { localDate, localMinuteOfDay, type AppleTime } from './dates';
import type { DayResult } from './daily';
import { STRIDE, mergeIntervals, splitAtGaps, totalMs } from './intervals';

/** A night's day starts at 18:00: a record ending later belongs to tomorrow's night. */
const NIGHT_SHIFT_MIN = 6 * 60;
/** Sleep more than this apart is two sleeps (a night and a nap); smaller gaps are awakenings. */
const SESSION_GAP_MS = 3 * 3_600_000;
/** Compact a day's intervals once this many numbers pile up (a night has a few dozen stages). */
const COMPACT_AT = 64 * STRIDE;

export type SleepKind = 'asleep' | 'inBed';

interface SourceNight {
  asleep: number[];
  /** Every interval the person was in bed: in bed, asleep, awake. */
  bed: number[];
}

export const SLEEP_COLUMNS = ['sleep', 'time_in_bed', 'sleep_start', 'sleep_end', 'sleep_awakenings'] as const;
type SleepColumn = (typeof SLEEP_COLUMNS)[number];

export class SleepNights {
  private readonly days = new Map<string, Map<string, SourceNight>>();

  add(kind: SleepKind, start: AppleTime, end: AppleTime, source: string): void {
    if (end.epochMs <= start.epochMs) return;
    const day = localDate(end.epochMs, end.offsetMin, NIGHT_SHIFT_MIN);
    let sources = this.days.get(day);
    if (sources === undefined) this.days.set(day, (sources = new Map()));
    let night = sources.get(source);
    if (night === undefined) sources.set(source, (night = { asleep: [], bed: [] }));
    const interval = [start.epochMs, end.epochMs, start.offsetMin, end.offsetMin];
    night.bed.push(...interval);
    if (kind === 'asleep') night.asleep.push(...interval);
    if (night.bed.length > COMPACT_AT) night.bed = mergeIntervals(night.bed);
    if (night.asleep.length > COMPACT_AT) night.asleep = mergeIntervals(night.asleep);
  }

  /** The five sleep columns' day results. */
  results(): Map<SleepColumn, DayResult[]> {
    const out = new Map<SleepColumn, DayResult[]>(SLEEP_COLUMNS.map((c) => [c, []]));
    const dates = [...this.days.keys()].sort();
    for (const date of dates) {
      const sources = this.days.get(date) as Map<string, SourceNight>;
      const [source, night] = chooseSource(sources);
      const asleep = mergeIntervals(night.asleep);
      const bed = mergeIntervals(night.bed);
      const from = `from ${source}`;
      const push = (column: SleepColumn, value: number): void => {
        out.get(column)?.push({ date, value, from });
      };
      push('time_in_bed', totalMs(bed) / 60_000);
      // The night is the longest sleep of the day; its edges are the asleep ones when the source
      // tells asleep from in bed, else the in-bed ones (old phones only recorded time in bed).
      const main = mainSession(asleep.length > 0 ? asleep : bed);
      push('sleep_start', minutesFromMidday(main[0], main[2]));
      push('sleep_end', localMinuteOfDay(main[main.length - STRIDE + 1], main[main.length - 1]));
      if (asleep.length > 0) {
        push('sleep', totalMs(asleep) / 60_000);
        push('sleep_awakenings', main.length / STRIDE - 1);
      }
    }
    return out;
  }
}

function minutesFromMidday(epochMs: number, offsetMin: number): number {
  return (localMinuteOfDay(epochMs, offsetMin) + 720) % 1440;
}

function mainSession(merged: number[]): number[] {
  let best: number[] = [];
  let bestMs = -1;
  for (const run of splitAtGaps(merged, SESSION_GAP_MS)) {
    const ms = totalMs(run);
    if (ms > bestMs) [best, bestMs] = [run, ms];
  }
  return best;
}

/** The source with the most time asleep (then in bed; ties to the name first in order). */
function chooseSource(sources: Map<string, SourceNight>): [string, SourceNight] {
  let pick: [string, SourceNight] | undefined;
  let pickKey: [number, number] = [-1, -1];
  for (const [name, night] of sources) {
    const key: [number, number] = [totalMs(mergeIntervals(night.asleep)), totalMs(mergeIntervals(night.bed))];
    const better = key[0] > pickKey[0] || (key[0] === pickKey[0] && (key[1] > pickKey[1] || (key[1] === pickKey[1] && pick !== undefined && name < pick[0])));
    if (pick === undefined || better) [pick, pickKey] = [[name, night], key];
  }
  return pick as [string, SourceNight];
}
