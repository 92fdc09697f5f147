/**
 * What /settings/import shows at each step of an import (docs/pages.md, "Importing"): the
 * progress while a job works (the page reloads itself), the dry run's counts and first problems,
 * the result, and where and why a file could not be read or a run stopped.
 */
import type { ImportStage, ImportUpload } from '../../domain/imports/uploads';
import type { ImportCounts, ImportFormat, ImportProblem, ImportReport } from '../../domain/imports/types';
import { html, type Html } from '../html';
import { sizeInWords } from './import-upload';

const FORMAT_WORDS: Record<ImportFormat, string> = {
  'apple-health': 'an Apple Health export',
  'daybook-csv': "Daybook's own CSV export",
  'daybook-json': "Daybook's own JSON export",
  'csv-long': 'a CSV with a row per value (date, attribute, value)',
  'csv-wide': 'a CSV with a column per attribute',
};

export function formatWords(format: ImportFormat | null): string {
  return format ? FORMAT_WORDS[format] : 'not known yet';
}

const STAGE_WORDS: Record<ImportStage, string> = {
  reading: 'Reading the file',
  preview: 'Waiting for your choices',
  checking: 'Checking',
  checked: 'Checked, waiting for Go',
  running: 'Importing',
  done: 'Imported',
  stopped: 'Stopped',
  unreadable: 'Could not be read',
  cancelled: 'Cancelled',
};

export function stageWords(stage: ImportStage): string {
  return STAGE_WORDS[stage];
}

function number(n: number): string {
  return n.toLocaleString('en-GB');
}

/** How far a working job has got. */
export function progressCard(upload: ImportUpload, refreshSeconds: number): Html {
  const progress = upload.progress;
  const percent = progress && progress.totalBytes > 0 ? Math.min(100, Math.floor((progress.bytes / progress.totalBytes) * 100)) : undefined;
  const what = upload.stage === 'reading' ? 'Reading the file' : upload.stage === 'checking' ? 'Checking every value (nothing is written)' : 'Importing';
  return html`<div class="card"><h2>${what}</h2>
<p role="status">${
    progress ? html`${percent !== undefined ? `${percent}% of the file, ` : ''}${number(progress.records)} records read.` : 'Waiting for a worker to start it.'
  }</p>
${percent !== undefined ? html`<progress max="100" value="${String(percent)}" aria-label="${what}">${percent}%</progress>` : ''}
<p class="muted">This page reloads itself every ${refreshSeconds} seconds. You may leave it: the import goes on without it.</p>
<p><a href="/settings/import/${upload.id}">Refresh</a> · <a href="/settings/import/${upload.id}?refresh=off">Stop reloading</a></p>
</div>`;
}

/** The counts of a report as a table. */
export function countsTable(counts: ImportCounts, dryRun: boolean): Html {
  const rows: Array<[string, number]> = [
    [dryRun ? 'Would be added (days without a value)' : 'Added (days without a value)', counts.added],
    [dryRun ? 'Would be changed (replaced)' : 'Changed (replaced)', counts.changed],
    ['Kept (you have a different value and chose keep)', counts.kept],
    ['Unchanged (you have the same value)', counts.unchanged],
    ['Refused (the value breaks a rule)', counts.refused],
  ];
  return html`<table class="counts"><caption class="visually-hidden">Values by what ${dryRun ? 'would happen' : 'happened'} to them</caption>
<tbody>${rows.map(([words, n]) => html`<tr><th scope="row">${words}</th><td data-count="${String(n)}">${number(n)}</td></tr>`)}</tbody></table>`;
}

function whereWords(problem: ImportProblem): Html {
  return html`${problem.where ? html`<strong>${problem.where}</strong>${problem.column ? `, column ${problem.column}` : ''}: ` : ''}${problem.message}`;
}

/** The first problems of a report, and what stopped it. */
export function problemsOf(report: ImportReport, dryRun: boolean): Html {
  const shown = report.problems.slice(0, 20);
  return html`${
    report.fault
      ? html`<div class="error" role="alert"><p>${dryRun ? 'The check stopped here' : 'The import stopped here'}: ${whereWords(report.fault)}</p>
<p>${dryRun ? 'Values before it were checked. Go imports them; fix the file and upload it again for the rest.' : 'Everything before it was imported and stays (the counts above). Fix the file and upload it again for the rest: the days already imported count as unchanged.'}</p></div>`
      : ''
  }
${
  shown.length > 0
    ? html`<h3>${report.counts.refused > shown.length ? `The first ${shown.length} of ${number(report.counts.refused)} problems` : 'Problems'}</h3>
<ul class="problems">${shown.map((problem) => html`<li>${whereWords(problem)}</li>`)}</ul>`
    : ''
}`;
}

/** When the report's values are, and the attributes the import made. */
export function reportFacts(report: ImportReport): Html {
  return html`${report.firstDate ? html`<p>Days from ${report.firstDate} to ${report.lastDate ?? report.firstDate}.</p>` : ''}
${report.created.length > 0 ? html`<p>${report.created.length === 1 ? 'New attribute' : 'New attributes'}: ${report.created.join(', ')}.</p>` : ''}`;
}

/** The file's line in every view. */
export function fileLine(upload: ImportUpload): Html {
  return html`<p>File: <strong>${upload.fileName}</strong> (${sizeInWords(upload.fileBytes)}), ${formatWords(upload.format)}.</p>`;
}

/** The person's earlier imports, newest first. */
export function recentList(uploads: ImportUpload[]): Html {
  if (uploads.length === 0) return html``;
  return html`<div class="card"><h2>Your imports</h2><ul>${uploads.map(
    (u) =>
      html`<li><a href="/settings/import/${u.id}">${u.fileName}</a>: ${stageWords(u.stage)}, <time datetime="${u.createdAt.toISOString()}">${u.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</time></li>`,
  )}</ul></div>`;
}
