/**
 * record_high (priority 2, day): yesterday's value is higher than every value of the 365 days
 * before it (at least 60 of them): a new personal best, or worst, depending on the attribute.
 */
import type { InsightType } from './types';
import { RECORD_LOOKBACK, recordFinding } from './records';

export const recordHigh: InsightType = {
  name: 'record_high',
  period: RECORD_LOOKBACK,
  priority: 2,
  find: (attribute, { data, todayIndex }) => recordFinding(attribute, data, todayIndex, 'high'),
};
