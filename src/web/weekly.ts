/**
 * A long series by week (docs/pages.md, "Charts"): past about four months a day is thinner than a
 * pixel on a phone, so a year is drawn as weeks, each its mean with its lowest and highest day.
 * Weeks are counted back from the last day, so every week is seven whole days (the oldest days
 * that do not make a whole week are left out). For yes/no days a week is how many days were
 * ticked: "days per week".
 */
import type { DayPoint } from './charts';

/** More days than this are drawn by week. */
export const DAILY_UP_TO = 120;

/** The series in whole weeks ending on its last day, oldest first; a week is labelled by its first day. */
function weeksOf(points: readonly DayPoint[]): DayPoint[][] {
  const weeks: DayPoint[][] = [];
  for (let end = points.length; end - 7 >= 0; end -= 7) weeks.unshift(points.slice(end - 7, end));
  return weeks;
}

/** Each week's mean, lowest and highest day, and how many days had a value (no value: a gap). */
export function weeklyMeans(points: readonly DayPoint[]): DayPoint[] {
  return weeksOf(points).map((week) => {
    const values = week.map((p) => p.value).filter((v): v is number => v !== null);
    if (values.length === 0) return { date: week[0].date, value: null };
    return {
      date: week[0].date,
      value: values.reduce((a, b) => a + b, 0) / values.length,
      low: Math.min(...values),
      high: Math.max(...values),
      days: values.length,
    };
  });
}

/** Each week's count of ticked days (0 to 7; a day not ticked is a 0). */
export function daysPerWeek(points: readonly DayPoint[]): DayPoint[] {
  return weeksOf(points).map((week) => ({ date: week[0].date, value: week.filter((p) => (p.value ?? 0) >= 1).length }));
}
