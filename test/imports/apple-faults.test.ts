/**
 * A file that is not an Apple Health export, a truncated zip or XML broken half-way gets a clear
 * answer saying where and why (an ImportFault), before any value is given, so nothing is written.
 */
import { readFileSync, truncateSync, statSync } from 'node:fs';
import { openAppleHealth } from '../../src/domain/imports/apple-health';
import { ImportFault } from '../../src/domain/imports/types';
import { EXPORT_HEAD, EXPORT_TAIL, ExportFolder, quantity } from './apple-export-files';

let files: ExportFolder;
beforeAll(() => {
  files = new ExportFolder();
});
afterAll(() => files.remove());

/** The fault opening `file` throws. */
async function faultOf(file: string): Promise<ImportFault> {
  const error: unknown = await openAppleHealth(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImportFault);
  return error as ImportFault;
}

const steps = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => quantity('StepCount', 'iPhone', `2024-01-${String((i % 28) + 1).padStart(2, '0')} 09:00:00 +0100`, 100, 'count'));

describe('not an Apple Health export', () => {
  it('a CSV file is not an export', async () => {
    const fault = await faultOf(files.raw('date,steps\n2024-01-01,1000\n', 'steps.csv'));
    expect(fault.where).toBe('the file');
    expect(fault.message).toMatch(/^This file is not an Apple Health export: it is not XML/);
  });

  it('XML of another kind is not an export', async () => {
    const fault = await faultOf(files.raw('<?xml version="1.0"?>\n<gpx version="1.1"><trk/></gpx>\n', 'track.gpx'));
    expect(fault.where).toBe('line 2');
    expect(fault.message).toBe('This file is not an Apple Health export: its XML starts with <gpx>, not <HealthData>.');
  });

  it('a zip without export.xml is not an export', async () => {
    const fault = await faultOf(await files.zip('hello', 'photos.zip', 'holiday/notes.txt'));
    expect(fault.where).toBe('the zip');
    expect(fault.message).toBe('This zip is not an Apple Health export: it holds no export.xml.');
  });
});

describe('damaged files', () => {
  it('a truncated zip says so', async () => {
    const zip = await files.zip(EXPORT_HEAD + steps(2000).join('') + EXPORT_TAIL, 'cut.zip');
    truncateSync(zip, Math.floor(statSync(zip).size / 2));
    const fault = await faultOf(zip);
    expect(fault.where).toBe('the zip');
    expect(fault.message).toMatch(/^The zip is truncated or damaged \(.+\); make the export on the phone again/);
  });

  it('a zip whose compressed data is damaged is a fault: where inflating or the garbled XML stopped', async () => {
    const zip = await files.zip(EXPORT_HEAD + steps(2000).join('') + EXPORT_TAIL, 'garbled.zip');
    const bytes = readFileSync(zip);
    bytes.fill(0, 2000, 2400);
    const damaged = files.raw(bytes, 'garbled-copy.zip');
    const fault = await faultOf(damaged);
    expect(fault.where).toMatch(/^(apple_health_export\/export\.xml in the zip, byte [\d,]+|line [\d,]+)$/);
    expect(fault.message).toMatch(/^(The file is damaged or cut short|The XML is broken or cut short here)/);
  });

  it('XML with a tag broken half-way names its line', async () => {
    const lines = steps(1000);
    lines[500] = lines[500].slice(0, 60) + '\n'; // the record's tag stops mid-attribute
    const fault = await faultOf(files.raw(EXPORT_HEAD + lines.join('') + EXPORT_TAIL, 'broken.xml'));
    const headLines = EXPORT_HEAD.split('\n').length - 1;
    expect(fault.where).toBe(`line ${headLines + 502}`);
    expect(fault.message).toMatch(/^The XML is broken or cut short here: /);
  });

  it('XML cut short (no closing </HealthData>) is a fault, not a shorter import', async () => {
    const fault = await faultOf(files.raw(EXPORT_HEAD + steps(10).join(''), 'short.xml'));
    expect(fault.message).toMatch(/^The XML is broken or cut short here: /);
  });

  it('a unit Daybook does not know names the record’s line', async () => {
    const lines = [...steps(3), quantity('BodyMass', 'Scale', '2024-01-05 07:00:00 +0100', 10, 'furlongs')];
    const fault = await faultOf(files.xml(lines, 'unit.xml'));
    const headLines = EXPORT_HEAD.split('\n').length - 1;
    expect(fault.where).toBe(`line ${headLines + 4}`);
    expect(fault.message).toBe('HKQuantityTypeIdentifierBodyMass in the unit "furlongs", which Daybook does not know.');
  });
});
