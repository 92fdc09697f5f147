/**
 * A column's value type, inferred from its cells (docs/imports-csv.md, "Value types"). Each
 * non-empty cell is one kind; the kinds a column holds decide its type. The person confirms the
 * type in the preview before a new attribute is created; an existing attribute or a template keeps
 * its own type and the cells are read by it.
 */
import { VALUE_TYPES } from '../../../db/catalogue-value-types';

const enum Kind {
  ZeroOne = 1,
  YesNo = 2,
  Integer = 4,
  Float = 8,
  Clock = 16,
  Duration = 32,
  Text = 64,
}

const INTEGER = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const YES_NO = /^(?:yes|no|y|n|true|false)$/i;
const HOURS_MINUTES = /^(\d+):[0-5]\d(?::[0-5]\d)?$/;
/** Header words that make a column of clock-like cells (all under 24:00) times of day. */
const TIME_WORDS = /\b(?:start|started|end|ended|bed|bedtime|wake|woke|up|at|when|clock|time of day)\b/i;
/** ... and words that make it durations. */
const DURATION_WORDS = /\b(?:duration|length|long|asleep|sleep|hours?|hrs?|minutes?|mins?|spent|total|screen time)\b/i;

function kindOf(cell: string): Kind {
  if (cell === '0' || cell === '1') return Kind.ZeroOne;
  if (INTEGER.test(cell)) return Kind.Integer;
  if (FLOAT.test(cell)) return Kind.Float;
  if (YES_NO.test(cell)) return Kind.YesNo;
  const clock = HOURS_MINUTES.exec(cell);
  if (clock) return Number(clock[1]) <= 23 ? Kind.Clock : Kind.Duration;
  return Kind.Text;
}

/** The kinds a column holds, to name its type when the file is read. */
export class ColumnKinds {
  private seen = 0;

  /** Adds a non-empty cell, trimmed; `text` says the file marks it as text whatever it looks like. */
  add(cell: string, text = false): void {
    this.seen |= text ? Kind.Text : kindOf(cell);
  }

  /** Whether every cell was 0 or 1. */
  onlyZeroOne(): boolean {
    return this.seen === Kind.ZeroOne;
  }

  /**
   * The value type code, undefined for a column without a value. `header` (the column's header or
   * attribute text) tells `7:30` as a time of day from `7:30` as a duration when no cell reaches 24:00.
   */
  valueType(header = ''): number | undefined {
    const seen = this.seen;
    if (seen === 0) return undefined;
    const within = (kinds: number) => (seen & ~kinds) === 0;
    if (within(Kind.ZeroOne | Kind.YesNo)) return VALUE_TYPES.boolean;
    if (within(Kind.ZeroOne | Kind.Integer)) return VALUE_TYPES.integer;
    if (within(Kind.ZeroOne | Kind.Integer | Kind.Float)) return VALUE_TYPES.float;
    if (within(Kind.Clock)) {
      const words = header.replace(/[_.-]+/g, ' ');
      return !TIME_WORDS.test(words) && DURATION_WORDS.test(words) ? VALUE_TYPES.period : VALUE_TYPES.timeOfDay;
    }
    if (within(Kind.Clock | Kind.Duration)) return VALUE_TYPES.period;
    return VALUE_TYPES.string;
  }
}
