/**
 * Apple Health exports become daily values of the matching templates (docs/apple-health.md):
 * one source per day for totals, metric units, each record's own offset, nights on the day they end.
 */
import { readFileSync, statSync } from 'node:fs';
import { ExportFolder, category, quantity, readAll, recordXml, valueOf, workoutXml } from './apple-export-files';

const WATCH = 'Apple Watch';
const PHONE = 'iPhone';

let files: ExportFolder;
beforeAll(() => {
  files = new ExportFolder();
});
afterAll(() => files.remove());

describe('several sources for one quantity', () => {
  it("a day's steps are the source that counted the most, never the watch and the phone added", async () => {
    const file = files.xml([
      quantity('StepCount', PHONE, '2024-05-01 09:00:00 +0100', 3000, 'count', '2024-05-01 10:00:00 +0100'),
      quantity('StepCount', WATCH, '2024-05-01 09:00:00 +0100', 2500, 'count', '2024-05-01 09:30:00 +0100'),
      quantity('StepCount', WATCH, '2024-05-01 09:30:00 +0100', 2500, 'count', '2024-05-01 10:00:00 +0100'),
      quantity('StepCount', PHONE, '2024-05-02 09:00:00 +0100', 4000, 'count', '2024-05-02 10:00:00 +0100'),
      quantity('StepCount', WATCH, '2024-05-02 09:00:00 +0100', 1000, 'count', '2024-05-02 10:00:00 +0100'),
    ]);
    const { byDay, reader } = await readAll(file);
    expect(valueOf(byDay, 'steps', '2024-05-01')).toBe(5000);
    expect(valueOf(byDay, 'steps', '2024-05-02')).toBe(4000);
    expect(byDay.get('steps 2024-05-01')?.where).toContain('from Apple Watch, 2 records; 1 other source left out');
    expect(reader.format).toBe('apple-health');
    expect(reader.columns).toEqual([{ key: 'steps', label: 'Steps', name: 'steps', template: 'steps', group: 'activity', valueType: 0 }]);
  });

  it('a run the watch and a running app both recorded is one workout', async () => {
    const run = {
      workoutActivityType: 'HKWorkoutActivityTypeRunning',
      duration: 30,
      durationUnit: 'min',
      startDate: '2024-05-03 07:00:00 +0100',
      endDate: '2024-05-03 07:30:00 +0100',
    };
    const file = files.xml([
      workoutXml({ ...run, sourceName: WATCH }, [
        { type: 'HKQuantityTypeIdentifierDistanceWalkingRunning', startDate: run.startDate, endDate: run.endDate, sum: 5, unit: 'km' },
      ]),
      workoutXml({ ...run, duration: 31, startDate: '2024-05-03 07:01:00 +0100', sourceName: 'Strava', totalDistance: 3.2, totalDistanceUnit: 'mi' }),
      workoutXml({
        workoutActivityType: 'HKWorkoutActivityTypeYoga',
        duration: 0.5,
        durationUnit: 'hr',
        sourceName: WATCH,
        startDate: '2024-05-03 18:00:00 +0100',
        endDate: '2024-05-03 18:30:00 +0100',
      }),
    ]);
    const { byDay } = await readAll(file);
    expect(valueOf(byDay, 'workouts', '2024-05-03')).toBe(2);
    expect(valueOf(byDay, 'workouts_min', '2024-05-03')).toBe(61);
    expect(valueOf(byDay, 'workouts_distance', '2024-05-03')).toBe(5.15); // the longer of 5 km and 3.2 mi
  });
});

describe("the person's units become metric", () => {
  it('miles, kcal, pounds, fluid ounces, °F and percent are stored as km, kJ, kg, ml, °C and 0-1', async () => {
    const at = '2024-05-04 08:00:00 +0100';
    const file = files.xml([
      quantity('DistanceWalkingRunning', PHONE, at, 2, 'mi'),
      quantity('ActiveEnergyBurned', WATCH, at, 100, 'kcal'),
      quantity('DietaryEnergyConsumed', 'MyFitnessPal', at, 500, 'kcal'),
      quantity('BodyMass', 'Scale', at, 165, 'lb'),
      quantity('LeanBodyMass', 'Scale', at, 11, 'st'),
      quantity('DietaryWater', PHONE, at, 8, 'fl_oz_us'),
      quantity('DietaryWater', PHONE, '2024-05-04 12:00:00 +0100', 0.5, 'L'),
      quantity('BodyTemperature', 'Thermometer', at, 98.6, 'degF'),
      quantity('BodyFatPercentage', 'Scale', at, 0.215, '%'),
      quantity('DietaryCaffeine', PHONE, at, 0.095, 'g'),
      quantity('DietaryProtein', PHONE, at, 1, 'oz'),
      quantity('AppleExerciseTime', WATCH, at, 1800, 's'),
    ]);
    const { byDay } = await readAll(file);
    const day = (key: string): unknown => valueOf(byDay, key, '2024-05-04');
    expect(day('steps_distance')).toBe(3.219);
    expect(day('active_energy')).toBe(418.4);
    expect(day('energy')).toBe(2092);
    expect(day('weight')).toBe(74.843);
    expect(day('lean_mass')).toBe(69.853);
    expect(day('water')).toBe(737); // 236.6 ml + 500 ml, whole millilitres
    expect(day('body_temperature')).toBe(37);
    expect(day('body_fat')).toBe(0.215);
    expect(day('caffeine')).toBe(95);
    expect(day('protein')).toBe(28.35);
    expect(day('steps_active_min')).toBe(30);
  });
});

describe('days by the record’s own offset', () => {
  it('records around the change to summer time and while travelling fall on the local day they were made', async () => {
    const file = files.xml([
      quantity('FlightsClimbed', PHONE, '2024-03-30 23:30:00 +0100', 1, 'count'), // 22:30 UTC on the 30th
      quantity('FlightsClimbed', PHONE, '2024-03-31 00:30:00 +0100', 2, 'count'), // the clocks go forward at 02:00
      quantity('FlightsClimbed', PHONE, '2024-03-31 23:30:00 +0200', 4, 'count'), // 21:30 UTC
      quantity('FlightsClimbed', PHONE, '2024-06-01 23:30:00 -0700', 8, 'count'), // in California: 06:30 UTC on 2 June
      quantity('FlightsClimbed', PHONE, '2024-06-02 00:30:00 +0200', 16, 'count'), // at home, 22:30 UTC on 1 June
    ]);
    const { byDay } = await readAll(file);
    expect(valueOf(byDay, 'floors', '2024-03-30')).toBe(1);
    expect(valueOf(byDay, 'floors', '2024-03-31')).toBe(6);
    expect(valueOf(byDay, 'floors', '2024-06-01')).toBe(8);
    expect(valueOf(byDay, 'floors', '2024-06-02')).toBe(16);
  });
});

describe('sleep', () => {
  // The night the clocks go forward: in bed at 23:00 +0100, awake 06:50 +0200 (6 h 50 min later by the clock, 5 h 50 min really).
  const stage = (value: string, from: string, to: string): string => category('SleepAnalysis', WATCH, from, to, `HKCategoryValueSleepAnalysis${value}`);
  const night = [
    stage('InBed', '2024-03-30 23:00:00 +0100', '2024-03-31 07:00:00 +0200'),
    stage('AsleepCore', '2024-03-30 23:10:00 +0100', '2024-03-31 01:00:00 +0100'),
    stage('Awake', '2024-03-31 01:00:00 +0100', '2024-03-31 03:10:00 +0200'),
    stage('AsleepDeep', '2024-03-31 03:10:00 +0200', '2024-03-31 05:00:00 +0200'),
    stage('AsleepREM', '2024-03-31 05:00:00 +0200', '2024-03-31 05:30:00 +0200'),
    stage('Awake', '2024-03-31 05:30:00 +0200', '2024-03-31 05:40:00 +0200'),
    stage('AsleepCore', '2024-03-31 05:40:00 +0200', '2024-03-31 06:50:00 +0200'),
    // The phone saw the same night as time in bed only: not added to the watch's.
    category('SleepAnalysis', PHONE, '2024-03-30 22:30:00 +0100', '2024-03-31 07:30:00 +0200', 'HKCategoryValueSleepAnalysisInBed'),
  ];

  it('a night crossing midnight belongs to the day it ends on, with its start, end, length and awakenings', async () => {
    const { byDay } = await readAll(files.xml(night));
    const day = (key: string): unknown => valueOf(byDay, key, '2024-03-31');
    expect(day('sleep')).toBe(110 + 110 + 30 + 70);
    expect(day('time_in_bed')).toBe(7 * 60);
    expect(day('sleep_start')).toBe(11 * 60 + 10); // 23:10 is 11 h 10 min after midday
    expect(day('sleep_end')).toBe(6 * 60 + 50);
    expect(day('sleep_awakenings')).toBe(2);
    expect(valueOf(byDay, 'sleep', '2024-03-30')).toBeUndefined();
  });

  it('an afternoon nap adds to the time asleep, and the night keeps its own start and end', async () => {
    const nap = stage('AsleepUnspecified', '2024-03-31 14:00:00 +0200', '2024-03-31 14:30:00 +0200');
    const { byDay } = await readAll(files.xml([...night, nap], 'nap.xml'));
    expect(valueOf(byDay, 'sleep', '2024-03-31')).toBe(320 + 30);
    expect(valueOf(byDay, 'sleep_end', '2024-03-31')).toBe(6 * 60 + 50);
    expect(valueOf(byDay, 'sleep_awakenings', '2024-03-31')).toBe(2);
  });
});

describe('samples, readings and categories', () => {
  it('heart rate is the mean and the maximum of the day, weight the latest reading, flow the heaviest, mindful minutes summed', async () => {
    const file = files.xml([
      quantity('HeartRate', WATCH, '2024-05-05 08:00:00 +0100', 60, 'count/min'),
      quantity('HeartRate', WATCH, '2024-05-05 12:00:00 +0100', 71, 'count/min'),
      quantity('HeartRate', 'Polar', '2024-05-05 18:00:00 +0100', 150, 'count/min'),
      quantity('RestingHeartRate', WATCH, '2024-05-05 00:00:00 +0100', 55, 'count/min'),
      quantity('BodyMass', 'Scale', '2024-05-05 21:00:00 +0100', 71, 'kg'),
      quantity('BodyMass', 'Scale', '2024-05-05 07:00:00 +0100', 70, 'kg'),
      category('MenstrualFlow', PHONE, '2024-05-05 07:00:00 +0100', '2024-05-05 07:00:00 +0100', 'HKCategoryValueMenstrualFlowLight'),
      category('MenstrualFlow', PHONE, '2024-05-05 19:00:00 +0100', '2024-05-05 19:00:00 +0100', 'HKCategoryValueMenstrualFlowHeavy'),
      category('IntermenstrualBleeding', PHONE, '2024-05-06 07:00:00 +0100', '2024-05-06 07:00:00 +0100', 'HKCategoryValueNotApplicable'),
      category('MindfulSession', WATCH, '2024-05-05 07:00:00 +0100', '2024-05-05 07:10:00 +0100'),
      category('MindfulSession', WATCH, '2024-05-05 22:00:00 +0100', '2024-05-05 22:05:00 +0100'),
      // Types Daybook has no template for are read past.
      recordXml({
        type: 'HKQuantityTypeIdentifierBasalEnergyBurned',
        sourceName: WATCH,
        unit: 'kcal',
        value: 1500,
        startDate: '2024-05-05 00:00:00 +0100',
        endDate: '2024-05-05 23:00:00 +0100',
      }),
    ]);
    const { byDay, reader } = await readAll(file);
    const day = (key: string): unknown => valueOf(byDay, key, '2024-05-05');
    expect(day('heartrate')).toBe(94);
    expect(day('heartrate_max')).toBe(150);
    expect(day('heartrate_resting')).toBe(55);
    expect(day('weight')).toBe(71);
    expect(day('menstrual_flow')).toBe(4);
    expect(valueOf(byDay, 'menstrual_flow', '2024-05-06')).toBe(1);
    expect(day('meditation_min')).toBe(15);
    expect(reader.columns.map((c) => c.key)).toEqual(['weight', 'heartrate', 'heartrate_max', 'heartrate_resting', 'meditation_min', 'menstrual_flow']);
  });
});

describe('export.zip', () => {
  it('gives the same values as its export.xml, with progress up to the whole file and every record', async () => {
    const lines: string[] = [];
    for (let d = 1; d <= 28; d++) {
      const date = `2024-02-${String(d).padStart(2, '0')}`;
      for (let h = 0; h < 24; h++) lines.push(quantity('StepCount', 'Alice’s iPhone', `${date} ${String(h).padStart(2, '0')}:00:00 +0100`, 100 + h, 'count'));
    }
    const xml = files.xml(lines, 'zip-source.xml');
    const zip = await files.zip(readFileSync(xml, 'utf8'));
    const progress: { bytes: number; totalBytes: number; records: number }[] = [];
    const fromZip = await readAll(zip, progress);
    const fromXml = await readAll(xml);
    expect([...fromZip.byDay.values()].map((v) => [v.key, v.date, v.value])).toEqual([...fromXml.byDay.values()].map((v) => [v.key, v.date, v.value]));
    expect(valueOf(fromZip.byDay, 'steps', '2024-02-14')).toBe(2400 + 276);
    expect(fromZip.byDay.get('steps 2024-02-14')?.where).toContain('apple_health_export/export.xml: Steps on 2024-02-14, from Alice’s iPhone');
    expect(progress.at(-1)).toEqual({ bytes: statSync(zip).size, totalBytes: statSync(zip).size, records: 28 * 24 });
  });
});
