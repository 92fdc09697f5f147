/**
 * export.xml read as a stream of SAX events (saxes): each record is added to its day's running
 * totals and forgotten, so memory follows the number of days and sources, not the file's size.
 * Faults name the XML line (docs/apple-health.md, "Faults").
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { ImportFault } from '../types';
import { accumulatorFor, SumBySource, type DayAccumulator, type DayResult } from './daily';
import { AppleTimeReader, type AppleTime } from './dates';
import { MENSTRUAL_FLOW, MENSTRUAL_FLOW_TYPE, MINDFUL_TYPE, QUANTITIES, SLEEP_TYPE, SPOTTING_TYPE, type QuantityMapping } from './mappings';
import { SleepNights, type SleepKind } from './sleep';
import { converter } from './units';
import { DailyWorkouts } from './workouts';

const ROOT = 'HealthData';

/** How many record types (in their units) are remembered before the map is asked. */
const RECENT_TYPES = 6;

const SLEEP_VALUES: ReadonlyMap<string, SleepKind> = new Map([
  ['HKCategoryValueSleepAnalysisInBed', 'inBed'],
  ['HKCategoryValueSleepAnalysisAwake', 'inBed'],
  ['HKCategoryValueSleepAnalysisAsleep', 'asleep'],
  ['HKCategoryValueSleepAnalysisAsleepUnspecified', 'asleep'],
  ['HKCategoryValueSleepAnalysisAsleepCore', 'asleep'],
  ['HKCategoryValueSleepAnalysisAsleepDeep', 'asleep'],
  ['HKCategoryValueSleepAnalysisAsleepREM', 'asleep'],
]);

interface OpenWorkout {
  date: string;
  source: string;
  startMs: number;
  endMs: number;
  minutes: number;
  /** From the Workout's totalDistance (older exports). */
  km?: number;
  /** From its WorkoutStatistics children (exports since iOS 16). */
  statisticsKm: number;
}

type Attributes = Record<string, string>;

/**
 * Source names, each kept once as a string of its own. An attribute's text from the parser can be
 * a slice of the whole chunk it came from (V8 keeps the chunk alive for it), so a name kept as a
 * map key for every day would pin a chunk per day: memory would grow with the file. Records come
 * in runs of one source, so the last name is checked before the map.
 */
class SourceNames {
  private readonly names = new Map<string, string>();
  private last = '';

  of(text: string | undefined): string {
    if (text === undefined) return '';
    if (text === this.last) return this.last;
    let name = this.names.get(text);
    if (name === undefined) {
      name = Buffer.from(text, 'utf8').toString('utf8');
      this.names.set(name, name);
    }
    this.last = name;
    return name;
  }
}

/**
 * A record type in one unit as lately seen. Records come in long runs of a few types and units, so
 * the few last ones are compared first (two strings' text) before any map is hashed.
 */
interface LastQuantity {
  type: string | undefined;
  unit: string | undefined;
  mapping: QuantityMapping | undefined;
  convert: ((value: number) => number) | undefined;
  accumulators: DayAccumulator[];
}

export class ExportReader {
  /** Record and Workout elements seen. */
  records = 0;
  private readonly parser = new SaxesParser({ xmlns: false, position: true });
  private rootSeen = false;
  private readonly quantities = new Map<string, DayAccumulator>();
  private readonly mindful = new SumBySource();
  private readonly flow = accumulatorFor('max');
  private readonly sleep = new SleepNights();
  private readonly workouts = new DailyWorkouts();
  private workout: OpenWorkout | undefined;
  private readonly sources = new SourceNames();
  private readonly times = new AppleTimeReader();
  /** The last types seen, most recent first (at most RECENT_TYPES). */
  private recent: LastQuantity[] = [];

  constructor() {
    this.parser.on('opentag', (tag) => this.onOpen(tag));
    this.parser.on('closetag', (tag) => {
      if (tag.name === 'Workout') this.closeWorkout();
    });
  }

  /** Parses the next piece of text. */
  write(text: string): void {
    this.guard(() => this.parser.write(text));
  }

  /** The text is all there: the document must be complete. */
  end(): void {
    this.guard(() => this.parser.close());
  }

  /** Each column's day results (columns without any record are absent). */
  results(): Map<string, DayResult[]> {
    const out = new Map<string, DayResult[]>();
    for (const [column, acc] of this.quantities) out.set(column, acc.results());
    out.set('meditation_min', this.mindful.results());
    out.set('menstrual_flow', this.flow.results());
    for (const [column, days] of this.sleep.results()) out.set(column, days);
    for (const [column, days] of this.workouts.results()) out.set(column, days);
    return out;
  }

  private guard(step: () => void): void {
    try {
      step();
    } catch (e) {
      if (e instanceof ImportFault) throw e;
      const why = (e as Error).message.replace(/^\d+:\d+: /, '');
      if (!this.rootSeen) throw new ImportFault('the file', `This file is not an Apple Health export: it is not XML (${why}).`);
      throw new ImportFault(this.where(), `The XML is broken or cut short here: ${why}`);
    }
  }

  private where(): string {
    return `line ${this.parser.line.toLocaleString('en')}`;
  }

  private fault(message: string): never {
    throw new ImportFault(this.where(), message);
  }

  private onOpen(tag: SaxesTagPlain): void {
    if (!this.rootSeen) {
      if (tag.name !== ROOT) this.fault(`This file is not an Apple Health export: its XML starts with <${tag.name}>, not <${ROOT}>.`);
      this.rootSeen = true;
      return;
    }
    const a = tag.attributes as Attributes;
    switch (tag.name) {
      case 'Record':
        this.records += 1;
        this.onRecord(a);
        return;
      case 'Workout':
        this.records += 1;
        this.openWorkout(a);
        return;
      case 'WorkoutStatistics':
        this.onWorkoutStatistics(a);
        return;
    }
  }

  private onRecord(a: Attributes): void {
    const type = a.type;
    const quantity = this.quantity(type, a.unit);
    if (quantity.mapping !== undefined) {
      const value = (quantity.convert as (value: number) => number)(this.number(a.value, 'value'));
      const start = this.time(a.startDate, 'startDate');
      const source = this.sources.of(a.sourceName);
      for (const acc of quantity.accumulators) acc.add(start.date, source, value, start.epochMs);
      return;
    }
    switch (type) {
      case SLEEP_TYPE: {
        const kind = SLEEP_VALUES.get(a.value);
        if (kind !== undefined) this.sleep.add(kind, this.time(a.startDate, 'startDate'), this.time(a.endDate, 'endDate'), this.sources.of(a.sourceName));
        return;
      }
      case MINDFUL_TYPE: {
        const start = this.time(a.startDate, 'startDate');
        const end = this.time(a.endDate, 'endDate');
        this.mindful.add(start.date, this.sources.of(a.sourceName), Math.max(0, end.epochMs - start.epochMs) / 60_000);
        return;
      }
      case MENSTRUAL_FLOW_TYPE: {
        const level = MENSTRUAL_FLOW.get(a.value);
        if (level !== undefined) this.flow.add(this.time(a.startDate, 'startDate').date, '', level, 0);
        return;
      }
      case SPOTTING_TYPE:
        this.flow.add(this.time(a.startDate, 'startDate').date, '', 1, 0);
        return;
    }
  }

  /** The mapping, converter and accumulators of a record's type in its unit (the last ones, mostly). */
  private quantity(type: string | undefined, unit: string | undefined): LastQuantity {
    const recent = this.recent;
    for (let i = 0; i < recent.length; i++) {
      const seen = recent[i];
      if (seen.type === type && seen.unit === unit) return seen;
    }
    const mapping = type === undefined ? undefined : QUANTITIES.get(type);
    let convert: LastQuantity['convert'];
    const accumulators: DayAccumulator[] = [];
    if (mapping !== undefined) {
      convert = unit === undefined ? undefined : converter(mapping.family, unit);
      if (convert === undefined) this.fault(`${type} in the unit "${unit}", which Daybook does not know.`);
      for (const { column, rule } of mapping.targets) {
        let acc = this.quantities.get(column);
        if (acc === undefined) this.quantities.set(column, (acc = accumulatorFor(rule)));
        accumulators.push(acc);
      }
    }
    // Kept as strings of their own (not slices pinning the parser's chunk).
    const seen = { type: copy(type), unit: copy(unit), mapping, convert, accumulators };
    recent.unshift(seen);
    if (recent.length > RECENT_TYPES) recent.pop();
    return seen;
  }

  private openWorkout(a: Attributes): void {
    const start = this.time(a.startDate, 'startDate');
    const end = this.time(a.endDate, 'endDate');
    const minutes =
      a.duration !== undefined ? this.convert('minutes', a.duration, a.durationUnit ?? 'min', 'duration') : (end.epochMs - start.epochMs) / 60_000;
    const km = a.totalDistance !== undefined ? this.convert('km', a.totalDistance, a.totalDistanceUnit ?? 'km', 'totalDistance') : undefined;
    this.workout = { date: start.date, source: this.sources.of(a.sourceName), startMs: start.epochMs, endMs: end.epochMs, minutes, km, statisticsKm: 0 };
  }

  private onWorkoutStatistics(a: Attributes): void {
    if (this.workout === undefined || !a.type?.startsWith('HKQuantityTypeIdentifierDistance') || a.sum === undefined) return;
    this.workout.statisticsKm += this.convert('km', a.sum, a.unit ?? 'km', 'sum');
  }

  private closeWorkout(): void {
    const w = this.workout;
    if (w === undefined) return;
    this.workout = undefined;
    this.workouts.add(w.date, { startMs: w.startMs, endMs: w.endMs, minutes: w.minutes, km: w.km ?? w.statisticsKm, source: w.source });
  }

  private convert(family: 'minutes' | 'km', text: string, unit: string, what: string): number {
    const convert = converter(family, unit);
    if (convert === undefined) this.fault(`A workout's ${what} in the unit "${unit}", which Daybook does not know.`);
    return convert(this.number(text, what));
  }

  private number(text: string | undefined, what: string): number {
    const n = text === undefined || text === '' ? NaN : Number(text);
    if (!Number.isFinite(n)) this.fault(`The record's ${what} "${text ?? ''}" is not a number.`);
    return n;
  }

  private time(text: string | undefined, what: string): AppleTime {
    const t = this.times.read(text);
    if (t === undefined) this.fault(`The record's ${what} "${text ?? ''}" is not a date and time like "2024-03-10 07:45:00 +0100".`);
    return t;
  }
}

/** A string of its own, not a slice of a larger one. */
function copy<T extends string | undefined>(text: T): T {
  return (typeof text === 'string' ? Buffer.from(text, 'utf8').toString('utf8') : text) as T;
}
