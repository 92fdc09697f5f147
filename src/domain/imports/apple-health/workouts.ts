/**
 * Workouts per day (docs/apple-health.md, "Workouts"): a workout counts on the day it starts.
 * Two apps often record the same run (the watch and a running app): workouts of a day that overlap
 * in time are one workout, with the longest duration and distance among them. A day keeps only its
 * workouts' start, end, minutes and distance, a handful of numbers.
 */
import type { DayResult } from './daily';

interface Workout {
  startMs: number;
  endMs: number;
  minutes: number;
  km: number;
  source: string;
}

export const WORKOUT_COLUMNS = ['workouts', 'workouts_min', 'workouts_distance'] as const;
type WorkoutColumn = (typeof WORKOUT_COLUMNS)[number];

export class DailyWorkouts {
  private readonly days = new Map<string, Workout[]>();

  add(date: string, workout: Workout): void {
    const list = this.days.get(date);
    if (list === undefined) this.days.set(date, [workout]);
    else list.push(workout);
  }

  results(): Map<WorkoutColumn, DayResult[]> {
    const out = new Map<WorkoutColumn, DayResult[]>(WORKOUT_COLUMNS.map((c) => [c, []]));
    for (const date of [...this.days.keys()].sort()) {
      const list = (this.days.get(date) as Workout[]).slice().sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
      let count = 0;
      let minutes = 0;
      let km = 0;
      let i = 0;
      while (i < list.length) {
        // One workout: this one and every later one that starts before the group has ended.
        let end = list[i].endMs;
        let groupMinutes = list[i].minutes;
        let groupKm = list[i].km;
        let j = i + 1;
        for (; j < list.length && list[j].startMs < end; j++) {
          end = Math.max(end, list[j].endMs);
          groupMinutes = Math.max(groupMinutes, list[j].minutes);
          groupKm = Math.max(groupKm, list[j].km);
        }
        count += 1;
        minutes += groupMinutes;
        km += groupKm;
        i = j;
      }
      const sources = new Set(list.map((w) => w.source));
      const from = `${list.length} workout record${list.length === 1 ? '' : 's'} from ${[...sources].sort().join(', ')}`;
      out.get('workouts')?.push({ date, value: count, from });
      out.get('workouts_min')?.push({ date, value: minutes, from });
      if (km > 0) out.get('workouts_distance')?.push({ date, value: km, from });
    }
    return out;
  }
}
