/**
 * Week dating of the weekly sets (averages, correlations): a set is dated by the Monday that starts
 * the person's current local week, and covers the days before that Monday. So a set describes
 * complete days only, every run within one week recomputes (and replaces) the same set, and the
 * next Monday starts a new one; earlier sets stay as history.
 */
import { addDays, weekdayOf } from '../domain/time';

/** Days of the averages window: the 60 days before the set's date (docs/decisions.md, "Derived data"). */
export const AVERAGES_WINDOW_DAYS = 60;

/** Days of the correlation window: at most the 365 days before the set's date (docs/decisions.md, "Derived data"). */
export const CORRELATION_WINDOW_DAYS = 365;

/** The Monday on or before `today` (YYYY-mm-dd): the date of this week's sets. */
export function weekDate(today: string): string {
  return addDays(today, -weekdayOf(today));
}
