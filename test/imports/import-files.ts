/** Import files for the engine's tests: Daybook JSON exports written to a temporary folder. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ExportedAttribute {
  name: string;
  label: string;
  template?: string | null;
  group: string;
  value_type: number;
  priority?: number;
  manual?: boolean;
  values: Array<[string, number | string | boolean | null]>;
}

/** The text of a Daybook JSON export of these attributes (the shape src/domain/identity/account.ts writes). */
export function exportText(attributes: ExportedAttribute[]): string {
  return JSON.stringify({
    exported_at: '2026-11-26T12:00:00.000Z',
    account: { username: 'someone', timezone: 'UTC' },
    attributes: attributes.map((a) => ({
      name: a.name,
      label: a.label,
      template: a.template ?? null,
      group: a.group,
      value_type: a.value_type,
      priority: a.priority ?? 5,
      manual: a.manual ?? true,
      active: true,
      private: false,
      service: null,
      values: a.values.map(([date, value]) => ({ date, value })),
    })),
    averages: [],
    correlations: [],
    insights: [],
    apps: [],
    connected_apps: [],
  });
}

const folder = mkdtempSync(path.join(tmpdir(), 'daybook-import-test-'));
let files = 0;

/** Writes `text` to a new file; answers its path. */
export function writeImportFile(text: string | Buffer, name = `import-${++files}.json`): string {
  const file = path.join(folder, name);
  writeFileSync(file, text);
  return file;
}

/** `count` consecutive days from `first` (YYYY-MM-DD). */
export function days(first: string, count: number): string[] {
  const start = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
}
