/**
 * The day's form (docs/pages.md, "The day's form"): every attribute Daybook owns for the person,
 * entered on one form with one Save, written in one request. Each field is named `v:<attribute>`:
 * a 1-9 rating (mood) as nine choices, a tag as a checkbox, yes/no as two choices, a note as a
 * text area, durations and times as h:mm text, numbers with their unit. An empty field leaves the
 * day's value as it is (a value can be changed, not cleared); an unticked tag that was ticked
 * becomes 0 (it did not happen).
 */
import { VALUE_TYPES } from '../db/catalogue-value-types';
import { MANUAL_SERVICE } from '../db/catalogue-services';
import type { AttributeRowWithValues } from '../domain/tracking/attributes';
import type { ValueByHand } from '../domain/tracking/manual-tracking';
import type { JsonValue } from '../domain/tracking/values';
import { MOOD_NOTE_MAX_LENGTH } from '../domain/tracking/writes/value-rules';
import { isTagAttribute } from '../analytics/series';
import { fields, field, type Form } from './forms';
import { html, type Html } from './html';
import { shownType } from './series-view';
import { inputHint, inputValue, parseTypedValue } from './values';

export const FIELD_PREFIX = 'v:';

/** The attribute holding the day's tags as text: on the pages it is only ever derived from the ticked tags. */
const CUSTOM_TEXT = 'custom';

/**
 * Whether the pages offer a field for the attribute: Daybook must own it, and it must not be the
 * day's custom tags text, which always follows the ticked tags (docs/pages.md, "Tags as tags"; an
 * app may still write `custom` through the API).
 */
export function isEditableByHand(row: AttributeRowWithValues['row']): boolean {
  return row.service_name === MANUAL_SERVICE.name && row.name !== CUSTOM_TEXT;
}

export function isTag(row: AttributeRowWithValues['row']): boolean {
  return isTagAttribute({ group: row.group_name, valueType: row.value_type, priority: row.priority });
}

/** The day's stored value of a row whose values are newest first, ending on the day. */
export function dayValue(row: AttributeRowWithValues): JsonValue {
  return row.values[0]?.value ?? null;
}

function choices(name: string, label: string, options: ReadonlyArray<{ value: string; text: string }>, current: string, hint?: string): Html {
  return html`<fieldset class="choices"><legend>${label}${hint ? html` <span class="muted">${hint}</span>` : ''}</legend>${options.map(
    (o) =>
      html`<label class="choice"><input type="radio" name="${FIELD_PREFIX}${name}" value="${o.value}"${o.value === current ? html` checked` : ''}><span>${o.text}</span></label>`,
  )}</fieldset>`;
}

/**
 * The control of one attribute for the day. `typed` is what the person sent when the form came
 * back with a problem, shown back as typed; otherwise the stored value as it is typed.
 */
export function dayField(entry: AttributeRowWithValues, unit: string | null, typed?: string): Html {
  const { name, label } = entry.row;
  const type = shownType(entry.row);
  const stored = dayValue(entry);
  const id = `${FIELD_PREFIX}${name}`;
  if (isTag(entry.row)) {
    const on = typed !== undefined ? typed !== '' : stored === 1;
    return html`<label class="check tag"><input type="checkbox" name="${id}" value="1"${on ? html` checked` : ''}> ${label}</label>`;
  }
  const current = typed ?? inputValue(type, stored);
  switch (type) {
    case VALUE_TYPES.scale:
      return choices(
        name,
        label,
        Array.from({ length: 9 }, (_, i) => ({ value: String(i + 1), text: String(i + 1) })),
        current,
        '1 lowest, 9 highest',
      );
    case VALUE_TYPES.boolean:
      return choices(
        name,
        label,
        [
          { value: 'yes', text: 'Yes' },
          { value: 'no', text: 'No' },
        ],
        typed ?? (stored === 1 ? 'yes' : stored === 0 ? 'no' : ''),
      );
    case VALUE_TYPES.string:
      return html`<label for="${id}">${label}</label><textarea id="${id}" name="${id}" rows="2" maxlength="${MOOD_NOTE_MAX_LENGTH}">${current}</textarea>`;
    default: {
      const shownUnit = type === VALUE_TYPES.percentage ? '%' : unit;
      return html`<label for="${id}">${label}</label><span class="with-unit"><input type="text" id="${id}" name="${id}" value="${current}" inputmode="${type === VALUE_TYPES.period || type === VALUE_TYPES.timeOfDay || type === VALUE_TYPES.timeFromMidday ? 'text' : 'decimal'}" placeholder="${inputHint(type)}" autocomplete="off">${shownUnit ? html`<span class="unit">${shownUnit}</span>` : ''}</span>`;
    }
  }
}

export interface DayFormReading {
  /** The values to write: typed ones that differ from what the day holds. */
  items: ValueByHand[];
  /** Attribute name → the sentence saying what is wrong with what was typed. */
  problems: Map<string, string>;
  /** Attribute name → what was sent, to show back. */
  typed: Map<string, string>;
}

/** What the day's form asks to write, for the attributes Daybook owns (`rows`, their values ending on `date`). */
export function readDayForm(form: Form, rows: readonly AttributeRowWithValues[], date: string): DayFormReading {
  const reading: DayFormReading = { items: [], problems: new Map(), typed: new Map() };
  for (const entry of rows) {
    if (!isEditableByHand(entry.row)) continue;
    const { name, label, value_type: type } = entry.row;
    const sent = field(form, `${FIELD_PREFIX}${name}`);
    const stored = dayValue(entry);
    reading.typed.set(name, sent);
    if (isTag(entry.row)) {
      const on = fields(form, `${FIELD_PREFIX}${name}`).length > 0;
      if (on && stored !== 1) reading.items.push({ name, date, value: 1 });
      if (!on && stored === 1) reading.items.push({ name, date, value: 0 });
      continue;
    }
    if (type === VALUE_TYPES.string ? sent === '' : sent.trim() === '') continue;
    const parsed = parseTypedValue(type, sent);
    if ('problem' in parsed) {
      reading.problems.set(name, `${label}: ${parsed.problem}`);
      continue;
    }
    if (parsed.value !== stored) reading.items.push({ name, date, value: parsed.value });
  }
  return reading;
}
