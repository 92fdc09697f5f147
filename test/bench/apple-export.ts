/**
 * Generates Apple Health exports (export.xml, or export.zip holding apple_health_export/export.xml)
 * for the import benchmark and tests: several sources for one quantity (a phone and a watch both
 * count steps), the person's own units beside metric ones (mi and km, kcal and kJ, lb, fl oz, °F),
 * offsets that change at daylight saving (Central European time: +0100, +0200 from the last Sunday
 * of March to the last Sunday of October), nights crossing midnight in sleep stages, workouts
 * recorded twice (the watch and a running app). Streamed to disk: memory stays flat at any size.
 *
 *   node dist/test/bench/apple-export.js --records 2000000 --out /tmp/export.zip
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { writeZip } from './zip-writer';

export const PHONE = 'Alice’s iPhone';
export const WATCH = 'Alice’s Apple Watch';

/** The head of an export.xml as the phone writes it (the DTD shortened). */
export const EXPORT_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED sourceName CDATA #REQUIRED startDate CDATA #REQUIRED endDate CDATA #REQUIRED>
]>
<HealthData locale="en_GB">
 <ExportDate value="2025-01-01 09:00:00 +0100"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-01" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
`;
export const EXPORT_TAIL = '</HealthData>\n';

const escape = (v: string): string => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** An element's attributes as XML. */
const attrs = (a: Record<string, string | number>): string =>
  Object.entries(a)
    .map(([k, v]) => ` ${k}="${escape(String(v))}"`)
    .join('');

/** "2024-03-10 07:45:00 +0100": an instant as Apple writes it, at the given offset (minutes east of UTC). */
export function appleTime(epochMs: number, offsetMin: number): string {
  const iso = new Date(epochMs + offsetMin * 60_000).toISOString();
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} ${sign}${hhmm}`;
}

/** A <Record/> line. */
export function recordXml(a: { type: string; sourceName: string; startDate: string; endDate: string; unit?: string; value?: string | number }): string {
  return ` <Record${attrs({ ...a, creationDate: a.endDate })}/>\n`;
}

/** A <Workout> with its statistics (exports since iOS 16) or its totalDistance (older ones). */
export function workoutXml(a: Record<string, string | number>, statistics: Record<string, string | number>[] = []): string {
  if (statistics.length === 0) return ` <Workout${attrs(a)}/>\n`;
  return ` <Workout${attrs(a)}>\n${statistics.map((s) => `  <WorkoutStatistics${attrs(s)}/>\n`).join('')} </Workout>\n`;
}

/** Central European time's offset at an instant: +60, or +120 in summer time. */
export function cetOffset(epochMs: number): number {
  const year = new Date(epochMs).getUTCFullYear();
  const lastSunday = (month: number): number => {
    const last = new Date(Date.UTC(year, month + 1, 0, 1)); // the month's last day, 01:00 UTC
    return last.getTime() - last.getUTCDay() * 86_400_000;
  };
  return epochMs >= lastSunday(2) && epochMs < lastSunday(9) ? 120 : 60;
}

/** A small deterministic random source (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface ExportOptions {
  /** At least this many records (Record and Workout elements). */
  records: number;
  /** The first day, YYYY-MM-DD (default 2020-01-01). */
  from?: string;
  /** Days the records spread over (default 5 years). */
  days?: number;
  seed?: number;
}

/** Records a generated day has besides heart rate samples, which fill each day up to its share. */
const BASE_RECORDS_PER_DAY = 460;

/** The export's XML text, in pieces of about 64 KiB. */
export async function* generateExportXml(options: ExportOptions, onRecords?: (records: number) => void): AsyncGenerator<string> {
  const days = options.days ?? 1827;
  const heartRatePerDay = Math.max(24, Math.ceil(options.records / days) - BASE_RECORDS_PER_DAY);
  const rand = random(options.seed ?? 1);
  const first = Date.parse(`${options.from ?? '2020-01-01'}T00:00:00Z`) - 3_600_000; // local midnight, CET
  let written = 0;
  let buffer: string[] = [];
  let size = 0;
  yield EXPORT_HEAD;
  for (let day = 0; written < options.records; day++) {
    for (const line of dayRecords(first + day * 86_400_000, day, heartRatePerDay, rand)) {
      buffer.push(line);
      size += line.length;
      written += 1;
      if (size >= 65_536) {
        yield buffer.join('');
        onRecords?.(written);
        buffer = [];
        size = 0;
      }
    }
  }
  buffer.push(EXPORT_TAIL);
  yield buffer.join('');
  onRecords?.(written);
}

const HK = 'HKQuantityTypeIdentifier';

/** One day's records (each string one element). */
function* dayRecords(midnight: number, day: number, heartRates: number, rand: () => number): Generator<string> {
  const at = (min: number): string => appleTime(midnight + min * 60_000, cetOffset(midnight + min * 60_000));
  const rec = (type: string, sourceName: string, startMin: number, endMin: number, unit: string, value: string | number): string =>
    recordXml({ type: `${HK}${type}`, sourceName, unit, value, startDate: at(startMin), endDate: at(endMin) });
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const num = (lo: number, hi: number, digits = 2): string => (lo + rand() * (hi - lo)).toFixed(digits);

  // Activity: the phone in miles, the watch in kilometres; both count steps.
  for (let h = 0; h < 24; h++) {
    const steps = int(0, 800);
    yield rec('StepCount', PHONE, h * 60, h * 60 + 60, 'count', steps);
    yield rec('DistanceWalkingRunning', PHONE, h * 60, h * 60 + 60, 'mi', (steps * 0.00045).toFixed(4));
  }
  for (let m = 0; m < 1440; m += 30) {
    const steps = int(0, 450);
    yield rec('StepCount', WATCH, m, m + 30, 'count', steps);
    yield rec('DistanceWalkingRunning', WATCH, m, m + 30, 'km', (steps * 0.00072).toFixed(4));
  }
  for (let m = 0; m < 1440; m += 15) {
    yield rec('ActiveEnergyBurned', WATCH, m, m + 15, 'kcal', num(0, 30, 3));
    yield rec('BasalEnergyBurned', WATCH, m, m + 15, 'kcal', num(15, 20, 3));
  }
  for (let i = 0; i < 10; i++) yield rec('ActiveEnergyBurned', 'Strava', 600 + i * 5, 605 + i * 5, 'kJ', num(5, 40));
  for (let i = 0; i < 10; i++) yield rec('FlightsClimbed', PHONE, 480 + i * 60, 482 + i * 60, 'count', int(1, 3));
  for (let i = 0; i < 30; i++) yield rec('AppleExerciseTime', WATCH, 420 + i, 421 + i, 'min', 1);
  const step = 1440 / heartRates;
  for (let i = 0; i < heartRates; i++) {
    const m = Math.floor(i * step);
    yield rec('HeartRate', WATCH, m, m, 'count/min', int(52, 150));
  }
  yield rec('RestingHeartRate', WATCH, 0, 1439, 'count/min', int(52, 62));
  // Body: the scale in pounds; a thermometer in °F every third day.
  yield rec('BodyMass', 'Withings', 440, 440, 'lb', num(158, 166, 1));
  yield rec('BodyFatPercentage', 'Withings', 440, 440, '%', num(0.18, 0.24, 3));
  yield rec('LeanBodyMass', 'Withings', 440, 440, 'lb', num(120, 128, 1));
  if (day % 3 === 0) yield rec('BodyTemperature', 'Thermometer', 450, 450, 'degF', num(97.4, 99.1, 1));
  // Food: water in US fluid ounces; a food diary three times a day.
  for (let i = 0; i < 6; i++) yield rec('DietaryWater', 'WaterMinder', 480 + i * 90, 480 + i * 90, 'fl_oz_us', 8);
  for (const meal of [480, 750, 1140]) {
    yield rec('DietaryEnergyConsumed', 'MyFitnessPal', meal, meal, 'kcal', num(300, 900, 1));
    for (const [type, unit] of [
      ['Carbohydrates', 'g'],
      ['FatTotal', 'g'],
      ['Protein', 'g'],
      ['Fiber', 'g'],
      ['Sugar', 'g'],
      ['Sodium', 'mg'],
      ['Cholesterol', 'mg'],
      ['Caffeine', 'mg'],
    ]) {
      yield rec(`Dietary${type}`, 'MyFitnessPal', meal, meal, unit, num(1, 80, 1));
    }
  }
  yield recordXml({ type: 'HKCategoryTypeIdentifierMindfulSession', sourceName: WATCH, startDate: at(1260), endDate: at(1270) });
  if (day % 28 < 5) {
    const flow = [
      'HKCategoryValueMenstrualFlowHeavy',
      'HKCategoryValueMenstrualFlowMedium',
      'HKCategoryValueMenstrualFlowLight',
      'HKCategoryValueMenstrualFlowLight',
      'HKCategoryValueMenstrualFlowUnspecified',
    ][day % 28];
    yield recordXml({ type: 'HKCategoryTypeIdentifierMenstrualFlow', sourceName: PHONE, startDate: at(420), endDate: at(420), value: flow });
  }
  yield* night(at, int);
  if (day % 2 === 0) yield* workout(at, int);
}

/** The night ending this morning: the phone's time in bed, the watch's stages from 23:10 the evening before. */
function* night(at: (min: number) => string, int: (lo: number, hi: number) => number): Generator<string> {
  const sleep = 'HKCategoryTypeIdentifierSleepAnalysis';
  yield recordXml({ type: sleep, sourceName: PHONE, value: 'HKCategoryValueSleepAnalysisInBed', startDate: at(-60), endDate: at(420) });
  const stages = ['AsleepCore', 'AsleepDeep', 'AsleepCore', 'AsleepREM', 'Awake'];
  let m = -50 + int(0, 10);
  for (let i = 0; m < 410; i++) {
    const length = int(15, 35);
    yield recordXml({
      type: sleep,
      sourceName: WATCH,
      value: `HKCategoryValueSleepAnalysis${stages[i % stages.length]}`,
      startDate: at(m),
      endDate: at(Math.min(410, m + length)),
    });
    m += length;
  }
}

/** A morning run, recorded by the watch (statistics in km) and by a running app (totalDistance in miles). */
function* workout(at: (min: number) => string, int: (lo: number, hi: number) => number): Generator<string> {
  const minutes = int(25, 60);
  const km = (minutes / 6).toFixed(3);
  const run = { workoutActivityType: 'HKWorkoutActivityTypeRunning', duration: minutes, durationUnit: 'min', startDate: at(450), endDate: at(450 + minutes) };
  yield workoutXml({ ...run, sourceName: WATCH }, [
    { type: `${HK}DistanceWalkingRunning`, startDate: run.startDate, endDate: run.endDate, sum: km, unit: 'km' },
  ]);
  yield workoutXml({ ...run, sourceName: 'Strava', totalDistance: (Number(km) / 1.609344).toFixed(3), totalDistanceUnit: 'mi' });
}

/** Writes an export to `path`: a zip (apple_health_export/export.xml inside) when the path ends in .zip. */
export async function writeAppleExport(path: string, options: ExportOptions, onRecords?: (records: number) => void): Promise<void> {
  const xml = generateExportXml(options, onRecords);
  if (path.endsWith('.zip')) return writeZip(path, 'apple_health_export/export.xml', xml);
  const out = createWriteStream(path);
  for await (const text of xml) if (!out.write(text)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

if (require.main === module) {
  const arg = (name: string, fallback: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const records = Number(arg('records', '2000000'));
  const out = arg('out', '/tmp/apple-export.zip');
  let lastTenth = -1;
  writeAppleExport(out, { records }, (n) => {
    const tenth = Math.floor((n / records) * 10);
    if (tenth !== lastTenth) process.stdout.write(`  ${n.toLocaleString('en')} records\n`);
    lastTenth = tenth;
  })
    .then(() => process.stdout.write(`wrote ${out}\n`))
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
