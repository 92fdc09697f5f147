/**
 * The columns of a CSV file as its first reading finds them (docs/imports-csv.md, "Columns"): in
 * wide form, the header's attribute columns; in long form, each distinct attribute the rows name
 * (compared case-insensitively; the first spelling is the key), in order of first appearance. Each
 * gets a value type from its cells; Daybook's own export also says the label, the group (by its
 * label) and, through the name, the template.
 */
import { GROUPS } from '../../../db/catalogue-groups';
import { TEMPLATES_BY_NAME } from '../../../db/catalogue-templates';
import { CUSTOM_GROUP, TAG_PRIORITY, TAG_VALUE_TYPE } from '../../tracking/custom-tag';
import type { FileColumn } from '../types';
import { ColumnKinds } from './infer';

/** A group's name from the label Daybook's export writes (or from its name), case-insensitively. */
const GROUP_BY_TEXT = new Map(GROUPS.flatMap((g) => [[g.label.toLowerCase(), g.name] as const, [g.name, g.name] as const]));

export function groupName(text: string): string | undefined {
  return GROUP_BY_TEXT.get(text.trim().toLowerCase());
}

/**
 * Undoes the export's guard against spreadsheet formulas (src/domain/identity/csv-field.ts): the
 * apostrophe put wherever a cell could start before `= + - @`, tab or CR. Only for Daybook's own
 * export, whose text cells are all guarded so.
 */
const GUARD = /(?<=^|[,;\t|\r\n])'(?=[ "]*[=+\-@\t\r])/g;

export function unguard(text: string): string {
  return text.replace(GUARD, '');
}

/** One column being found. */
export class ColumnDraft {
  readonly kinds = new ColumnKinds();
  label: string;
  group?: string;

  constructor(
    readonly key: string,
    readonly daybook: boolean,
  ) {
    this.label = key;
  }

  /** The column as readers give it, once every row was seen. */
  column(): FileColumn {
    const base: FileColumn = { key: this.key, label: this.label, ...(this.group ? { group: this.group } : {}) };
    if (!this.daybook) {
      const valueType = this.kinds.valueType(this.label);
      return valueType === undefined ? base : { ...base, valueType };
    }
    // Daybook's export: the attribute column is the name; a template's name means the template.
    const template = TEMPLATES_BY_NAME.get(this.key);
    const named: FileColumn = { ...base, name: this.key };
    if (template) return { ...named, template: template.name, valueType: template.valueType };
    // A custom tag is a custom-group integer used as 1 (src/domain/tracking/custom-tag.ts): the
    // export does not say the priority that makes one, the group and cells do.
    if (this.group === CUSTOM_GROUP && this.kinds.onlyZeroOne()) return { ...named, valueType: TAG_VALUE_TYPE, priority: TAG_PRIORITY };
    const valueType = this.kinds.valueType(this.label);
    return valueType === undefined ? named : { ...named, valueType };
  }
}
