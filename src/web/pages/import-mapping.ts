/**
 * The preview of an import (docs/pages.md, "Importing"): each column of the file with what it
 * becomes (one of the person's attributes, a template's, a new attribute of theirs with the kind
 * of value they confirm, or left out), and keep or replace for days that already have a value.
 * Fields are numbered by the column's place in the file (`target_3`, `kind_3`, `label_3`), so a
 * column's key, which is the file's text, never becomes a field name or an id.
 */
import { TEMPLATES } from '../../db/catalogue-templates';
import type { ColumnTarget, ExistingDays, FileColumn, Mapping } from '../../domain/imports/types';
import { field, type Form } from '../forms';
import { html, type Html } from '../html';

/** The kinds of value a new attribute can be, in the person's words (as on /data/track), with their value type. */
export const VALUE_KINDS: ReadonlyArray<{ valueType: number; words: string }> = [
  { valueType: 0, words: 'A count (a whole number)' },
  { valueType: 1, words: 'A number' },
  { valueType: 3, words: 'A duration (minutes)' },
  { valueType: 4, words: 'A time of day' },
  { valueType: 5, words: 'A percentage' },
  { valueType: 7, words: 'Yes or no' },
  { valueType: 8, words: 'A 1-9 rating' },
  { valueType: 2, words: 'A note (text)' },
];

export function kindWords(valueType: number | undefined): string {
  return VALUE_KINDS.find((k) => k.valueType === valueType)?.words ?? 'Not known';
}

/** One of the person's attributes, as the choices list it. */
export interface OwnAttribute {
  name: string;
  label: string;
  template: string | null;
}

/** A target as a choice's value: `skip`, `new`, `a:<name>`, `t:<template>`. */
function choiceOf(target: ColumnTarget | undefined): string {
  if (!target || target.kind === 'skip') return 'skip';
  if (target.kind === 'new') return 'new';
  return target.kind === 'attribute' ? `a:${target.name}` : `t:${target.template}`;
}

/** The person's words for what a column becomes. */
export function targetWords(target: ColumnTarget | undefined, attributes: OwnAttribute[]): string {
  if (!target || target.kind === 'skip') return 'Left out';
  if (target.kind === 'new') return `New: ${target.label} (${kindWords(target.valueType).toLowerCase()})`;
  if (target.kind === 'attribute') return attributes.find((a) => a.name === target.name)?.label ?? target.name;
  return TEMPLATES.find((t) => t.name === target.template)?.label ?? target.template;
}

function selected(yes: boolean): Html {
  return yes ? html` selected` : html``;
}

function columnChoice(column: FileColumn, index: number, target: ColumnTarget | undefined, attributes: OwnAttribute[]): Html {
  const owned = new Set(attributes.map((a) => a.template).filter((t): t is string => t !== null));
  // A template the person already has is chosen as their attribute of it (the templates list leaves it out).
  const mine = target?.kind === 'template' ? attributes.find((a) => a.template === target.template) : undefined;
  const choice = mine ? `a:${mine.name}` : choiceOf(target);
  const templates = TEMPLATES.filter((t) => !owned.has(t.name));
  const newLabel = target?.kind === 'new' ? target.label : column.label;
  const newType = target?.kind === 'new' ? target.valueType : (column.valueType ?? 1);
  const about = [
    column.name && column.name !== column.label ? `named ${column.name}` : '',
    column.valueType !== undefined ? `values look like: ${kindWords(column.valueType).toLowerCase()}` : '',
  ]
    .filter((s) => s !== '')
    .join('; ');
  // The new attribute's name and kind (.new-only) show only while "A new attribute" is chosen: CSS :has (styles.ts), no script.
  return html`<fieldset class="column"><legend>${column.label}</legend>
${about ? html`<p class="muted">${about}</p>` : ''}
<label for="target_${index}">Becomes</label>
<select id="target_${index}" name="target_${index}">
<option value="skip"${selected(choice === 'skip')}>Leave it out</option>
<option value="new"${selected(choice === 'new')}>A new attribute of yours (below)</option>
<optgroup label="Your attributes">${attributes.map((a) => html`<option value="a:${a.name}"${selected(choice === `a:${a.name}`)}>${a.label}</option>`)}</optgroup>
<optgroup label="Daybook's templates">${templates.map((t) => html`<option value="t:${t.name}"${selected(choice === `t:${t.name}`)}>${t.label}</option>`)}</optgroup>
</select>
<div class="grid new-only"><div><label for="label_${index}">New attribute's name</label><input type="text" id="label_${index}" name="label_${index}" value="${newLabel}" maxlength="100"></div>
<div><label for="kind_${index}">Its kind of value</label><select id="kind_${index}" name="kind_${index}">${VALUE_KINDS.map((k) => html`<option value="${String(k.valueType)}"${selected(k.valueType === newType)}>${k.words}</option>`)}</select></div></div>
</fieldset>`;
}

/** The preview form: a choice per column, keep or replace, and the dry run's button. */
export function mappingForm(options: {
  action: string;
  csrf: string;
  columns: FileColumn[];
  mapping: Mapping;
  existing: ExistingDays;
  attributes: OwnAttribute[];
  problem?: string;
}): Html {
  const { columns, mapping, attributes } = options;
  return html`<form method="post" action="${options.action}" class="card">
<input type="hidden" name="csrf_token" value="${options.csrf}">
<h2>What each column becomes</h2>
${options.problem ? html`<p class="error" role="alert">${options.problem}</p>` : ''}
<p>Daybook proposed these from the columns' names. Nothing is written until you press Go after the check.</p>
${columns.map((column, index) => columnChoice(column, index, mapping[column.key], attributes))}
<fieldset class="choices"><legend>Days that already have a different value</legend>
<label class="check"><input type="radio" name="existing" value="keep"${options.existing === 'keep' ? html` checked` : ''}> Keep the value I have (the file's is left out)</label>
<label class="check"><input type="radio" name="existing" value="replace"${options.existing === 'replace' ? html` checked` : ''}> Replace it with the file's</label>
</fieldset>
<div class="actions"><button type="submit">Check (nothing is written)</button></div>
</form>`;
}

/** The mapping the form chose, or a sentence saying what to fix. */
export function mappingOf(form: Form, columns: FileColumn[], previous: Mapping): { mapping: Mapping; existing: ExistingDays } | string {
  const mapping: Mapping = {};
  for (const [index, column] of columns.entries()) {
    const choice = field(form, `target_${index}`);
    if (choice === 'skip') mapping[column.key] = { kind: 'skip' };
    else if (choice.startsWith('a:')) mapping[column.key] = { kind: 'attribute', name: choice.slice(2) };
    else if (choice.startsWith('t:')) mapping[column.key] = { kind: 'template', template: choice.slice(2) };
    else if (choice === 'new') {
      const label = field(form, `label_${index}`).trim();
      if (label === '') return `Give the new attribute for "${column.label}" a name.`;
      const valueType = Number(field(form, `kind_${index}`));
      if (!VALUE_KINDS.some((k) => k.valueType === valueType)) return `Pick the kind of value of "${column.label}" from the list.`;
      const earlier = previous[column.key];
      const proposed = earlier?.kind === 'new' ? earlier : undefined;
      // A Daybook export's own name and priority stay while the person keeps its label (a round trip keeps names).
      const kept = proposed?.name !== undefined && proposed.label === label ? { name: proposed.name, priority: proposed.priority } : {};
      mapping[column.key] = { kind: 'new', label, group: proposed?.group ?? column.group ?? 'custom', valueType, ...kept };
    } else return `Choose what "${column.label}" becomes.`;
  }
  const existing = field(form, 'existing') === 'replace' ? 'replace' : 'keep';
  return { mapping, existing };
}
