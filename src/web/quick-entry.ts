/**
 * The quick entry at the top of /data (docs/pages.md, "Quick entry"): the day's ratings as nine
 * buttons, the person's tags as toggles and the few numbers they track by hand, in one small form
 * saved with one tap. It posts to the same POST /data/day as the full day form, with the same
 * field names (`v:<attribute>`), so it follows the same rules: every tag of the person is in it
 * (an unticked tag becomes "did not happen"), an empty number keeps the day's value, and notes are
 * left to the full form (a field that is not sent keeps its value). Plain HTML, no script.
 */
import { VALUE_TYPES } from '../db/catalogue-value-types';
import type { AttributeRowWithValues } from '../domain/tracking/attributes';
import { dayValue, FIELD_PREFIX, isEditableByHand, isTag } from './day-form';
import { html, type Html } from './html';
import { shownType } from './series-view';
import { inputHint, inputValue } from './values';

/** The kinds of field the quick entry offers: the rest (notes) are on the full day form. */
function inQuickEntry(entry: AttributeRowWithValues): boolean {
  return isEditableByHand(entry.row) && shownType(entry.row) !== VALUE_TYPES.string;
}

function rating(entry: AttributeRowWithValues): Html {
  const { name, label } = entry.row;
  const current = inputValue(VALUE_TYPES.scale, dayValue(entry));
  return html`<fieldset class="quick-rating"><legend>${label} <span class="muted">1 lowest, 9 highest</span></legend><div class="nine">${Array.from(
    { length: 9 },
    (_, i) =>
      html`<label class="choice"><input type="radio" name="${FIELD_PREFIX}${name}" value="${i + 1}"${current === String(i + 1) ? html` checked` : ''}><span>${i + 1}</span></label>`,
  )}</div></fieldset>`;
}

function toggle(entry: AttributeRowWithValues): Html {
  const { name, label } = entry.row;
  return html`<label class="choice toggle"><input type="checkbox" name="${FIELD_PREFIX}${name}" value="1"${dayValue(entry) === 1 ? html` checked` : ''}><span>${label}</span></label>`;
}

function numberField(entry: AttributeRowWithValues, unit: (entry: AttributeRowWithValues) => string | null): Html {
  const { name, label } = entry.row;
  const type = shownType(entry.row);
  const id = `q-${name}`;
  const shownUnit = type === VALUE_TYPES.percentage ? '%' : unit(entry);
  const text = type === VALUE_TYPES.period || type === VALUE_TYPES.timeOfDay || type === VALUE_TYPES.timeFromMidday;
  return html`<span class="quick-number"><label for="${id}">${label}${shownUnit ? ` (${shownUnit})` : ''}</label><input type="text" id="${id}" name="${FIELD_PREFIX}${name}" value="${inputValue(type, dayValue(entry))}" inputmode="${text ? 'text' : 'decimal'}" placeholder="${inputHint(type)}" autocomplete="off"></span>`;
}

/** The quick entry form for `date` of what the person tracks by hand, or nothing when they track nothing by hand. */
export function quickEntry(
  rows: readonly AttributeRowWithValues[],
  date: string,
  dayName: string,
  csrf: string,
  unit: (entry: AttributeRowWithValues) => string | null,
): Html {
  const mine = rows.filter(inQuickEntry);
  if (mine.length === 0) return html``;
  const ratings = mine.filter((e) => !isTag(e.row) && shownType(e.row) === VALUE_TYPES.scale);
  const tags = mine.filter((e) => isTag(e.row));
  const numbers = mine.filter((e) => !isTag(e.row) && shownType(e.row) !== VALUE_TYPES.scale && shownType(e.row) !== VALUE_TYPES.boolean);
  return html`<form class="quick card" method="post" action="/data/day" aria-labelledby="quick-title">
<h2 id="quick-title">${dayName}</h2>
<input type="hidden" name="csrf_token" value="${csrf}"><input type="hidden" name="date" value="${date}">
${ratings.map(rating)}
${tags.length > 0 ? html`<fieldset class="quick-tags"><legend>Tags <span class="muted">tick what happened</span></legend>${tags.map(toggle)}</fieldset>` : ''}
${numbers.length > 0 ? html`<div class="quick-numbers">${numbers.map((e) => numberField(e, unit))}</div>` : ''}
<button type="submit" class="quick-save">Save ${dayName.toLowerCase() === 'today' ? 'today' : dayName}</button>
</form>`;
}
