/**
 * record_low (priority 2, day): yesterday's value is lower than every value of the 365 days
 * before it (at least 60 of them).
 */
import type { InsightType } from './types';
import { RECORD_LOOKBACK, recordFinding } from './records';

export const recordLow: InsightType = {
  name: 'record_low',
  period: RECORD_LOOKBACK,
  priority: 2,
  find: (attribute, { data, todayIndex }) => recordFinding(attribute, data, todayIndex, 'low'),
};
