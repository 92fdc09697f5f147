/**
 * The shape every insight type shares. A type looks at one attribute's series as of "today" (the
 * person's local date) and returns a finding when the data meets its criteria. Findings carry a
 * key that identifies them (the attribute and the day, week or month they are about), so the same
 * finding is stored once however often the job runs.
 */
import type { SeriesAttribute, UserData } from '../series';

export type InsightPriority = 1 | 2 | 3 | 4;

/** What a type sees. */
export interface InsightContext {
  data: UserData;
  /** The person's local date. */
  today: string;
  /** Day index of today in `data`. */
  todayIndex: number;
}

/** A finding before it is stored. */
export interface Finding {
  /** The day it is about, or null for a week or a month. */
  targetDate: string | null;
  /** Identifies the finding within its type and attribute: a date, a week's Monday, a month. */
  key: string;
  text: string;
  html: string;
  /** The main value and a comparison value, as text (version 1's value and value2). */
  value?: string;
  value2?: string;
}

export interface InsightType {
  /** Identifier, the API's type.name. */
  name: string;
  /** Days the type looks at (the API's type.period). */
  period: number;
  priority: InsightPriority;
  /** The finding for one attribute, or undefined when its data does not meet the criteria. */
  find(attribute: SeriesAttribute, ctx: InsightContext): Finding | undefined;
}

/** A finding with its type and attribute, ready to store. */
export interface Insight extends Finding {
  type: InsightType;
  attribute: SeriesAttribute;
}
