/**
 * Bringing one's history in (/settings/import; docs/pages.md, "Importing"), without JavaScript:
 * upload a file (streamed to disk: ./import-upload.ts), see what Daybook found and what each
 * column becomes (choose, confirm a new attribute's kind of value, keep or replace), check (a dry
 * run), Go, watch the progress, read the result. The work on the file happens in the `import-run`
 * job (src/jobs/import-jobs.ts); these pages record the person's choices and show where it is.
 */
import fs from 'node:fs';
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { Session } from '../../domain/identity/sessions';
import { listAttributes } from '../../domain/tracking/attributes';
import { forgetImportFile } from '../../domain/imports/engine';
import { createUpload, moveUpload, personUpload, recentUploads, WORKING_STAGES, type ImportStage, type ImportUpload } from '../../domain/imports/uploads';
import { HttpError } from '../../http/errors';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { EVERYTHING } from './data';
import { receiveUpload, sizeInWords } from './import-upload';
import { mappingForm, mappingOf, targetWords, type OwnAttribute } from './import-mapping';
import { countsTable, fileLine, problemsOf, progressCard, recentList, reportFacts, stageWords } from './import-views';

/** How often a page of a working import reloads itself (the `Refresh` header; docs/pages.md says why not a meta tag). */
export const REFRESH_SECONDS = 3;

async function ownAttributes(deps: Deps, userId: number): Promise<OwnAttribute[]> {
  const { results } = await listAttributes(deps.database, {
    userId,
    visibility: EVERYTHING,
    filters: { includeLowPriority: true },
    page: { limit: 1000, offset: 0 },
    now: deps.now(),
  });
  return results.map((a) => ({ name: a.name, label: a.label, template: a.template ?? null }));
}

/** The upload form and the person's imports. */
async function startPage(ctx: Koa.Context, deps: Deps, session: Session, notice?: string): Promise<void> {
  const nav = navFor(session, deps.now());
  const uploads = await recentUploads(deps.db, session.userId);
  sendPage(ctx, {
    title: 'Import your history',
    nav,
    body: html`<h1>Import your history</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<form method="post" action="/settings/import" enctype="multipart/form-data" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<h2>Choose a file</h2>
<p>Daybook reads:</p>
<ul>
<li>an Apple Health export (<code>export.zip</code> as the Health app shares it, or the <code>export.xml</code> inside);</li>
<li>Daybook's own exports (the CSV and JSON under <a href="/settings/account">Account</a>), from this Daybook or another;</li>
<li>any CSV: a row per value (<code>date,attribute,value</code>) or a <code>date</code> column and a column per attribute.</li>
</ul>
<p>You see what it found and what each column becomes, and a check of every value, before anything is written. Files up to ${sizeInWords(deps.config.importMaxBytes)}.</p>
<label for="file">The file</label>
<input type="file" id="file" name="file" required>
<div class="actions"><button type="submit">Upload and read it</button></div>
</form>
${recentList(uploads)}`,
  });
}

function cancelForm(upload: ImportUpload, csrf: string): Html {
  return html`<form method="post" action="/settings/import/${upload.id}/cancel" class="inline"><input type="hidden" name="csrf_token" value="${csrf}"><button type="submit" class="secondary">Cancel this import</button></form>`;
}

function goForm(upload: ImportUpload, csrf: string, words: string): Html {
  return html`<form method="post" action="/settings/import/${upload.id}/go" class="inline"><input type="hidden" name="csrf_token" value="${csrf}"><button type="submit">${words}</button></form>`;
}

/** What the page shows of an import in its step. */
async function stageBody(deps: Deps, upload: ImportUpload, csrf: string, options: { change: boolean; problem?: string }): Promise<Html> {
  const refresh = WORKING_STAGES.includes(upload.stage);
  if (refresh) return progressCard(upload, REFRESH_SECONDS);
  const attributes = upload.columns ? await ownAttributes(deps, upload.userId) : [];
  const form = () =>
    mappingForm({
      action: `/settings/import/${upload.id}/check`,
      csrf,
      columns: upload.columns ?? [],
      mapping: upload.mapping ?? {},
      existing: upload.existing,
      attributes,
      problem: options.problem,
    });
  switch (upload.stage) {
    case 'preview':
      return html`${form()}<p>${cancelForm(upload, csrf)}</p>`;
    case 'checked': {
      if (options.change) return html`${form()}<p>${cancelForm(upload, csrf)}</p>`;
      const report = upload.dryRun!;
      return html`<div class="card"><h2>The check</h2>
<p>Nothing has been written yet. ${upload.existing === 'keep' ? 'Days that already have a value keep it.' : "Days that already have a value get the file's."}</p>
${countsTable(report.counts, true)}
${problemsOf(report, true)}
${reportFacts(report)}
<h3>Columns</h3>
<ul>${(upload.columns ?? []).map((c) => html`<li>${c.label}: ${targetWords(upload.mapping?.[c.key], attributes)}</li>`)}</ul>
<div class="actions">${goForm(upload, csrf, 'Go: import it')} <a href="/settings/import/${upload.id}?change=1">Change the choices</a> ${cancelForm(upload, csrf)}</div>
</div>`;
    }
    case 'done':
    case 'stopped': {
      const report = upload.report;
      return html`<div class="card"><h2>${upload.stage === 'done' ? 'Imported' : 'The import stopped'}</h2>
${upload.problem ? html`<p class="error" role="alert">${upload.problem.message}</p>` : ''}
${report ? html`${countsTable(report.counts, false)}${problemsOf(report, false)}${reportFacts(report)}` : ''}
${
  upload.stage === 'done'
    ? html`<p><a href="/data${report?.lastDate ? `?date=${report.lastDate}` : ''}">See your data</a>. Averages, correlations and insights take the new days in at their next run (queued now).</p>`
    : html`<div class="actions">${goForm(upload, csrf, 'Run again')} ${cancelForm(upload, csrf)}</div>
<p class="muted">Running it again continues after the last part imported.</p>`
}</div>`;
    }
    case 'unreadable':
      return html`<div class="card"><h2>The file could not be read</h2>
<p class="error" role="alert">${upload.problem?.where ? html`<strong>${upload.problem.where}</strong>: ` : ''}${upload.problem?.message ?? ''}</p>
<p>Nothing was written. <a href="/settings/import">Upload another file</a>.</p></div>`;
    default:
      return html`<div class="card"><h2>Cancelled</h2><p>Nothing more will be imported from this file, and it has been removed. <a href="/settings/import">Import a file</a>.</p></div>`;
  }
}

async function importPage(
  ctx: Koa.Context,
  deps: Deps,
  session: Session,
  upload: ImportUpload,
  options: { change?: boolean; problem?: string; status?: number } = {},
): Promise<void> {
  const nav = navFor(session, deps.now());
  const working = WORKING_STAGES.includes(upload.stage);
  sendPage(ctx, {
    title: `Import: ${stageWords(upload.stage)}`,
    status: options.status,
    nav,
    body: html`<h1>Import: ${stageWords(upload.stage)}</h1>
${fileLine(upload)}
${await stageBody(deps, upload, nav.csrf, { change: options.change ?? false, problem: options.problem })}
<p class="muted"><a href="/settings/import">All imports</a></p>`,
  });
  // After sendPage: it sets the page headers, and a working page reloads itself (docs/pages.md).
  if (working && ctx.query.refresh !== 'off') ctx.set('Refresh', String(REFRESH_SECONDS));
}

/** The person's import named in the address, else 404. */
async function uploadIn(ctx: Koa.Context, deps: Deps, session: Session): Promise<ImportUpload> {
  const upload = await personUpload(deps.db, session.userId, String(ctx.params.id));
  if (!upload) throw new HttpError(404, 'There is no such import of yours.');
  return upload;
}

/** Moves the import on and queues its job (or leaves it to the import sweep when this process runs no workers). */
async function moveAndQueue(
  ctx: Koa.Context,
  deps: Deps,
  upload: ImportUpload,
  from: readonly ImportStage[],
  change: Parameters<typeof moveUpload>[3],
): Promise<void> {
  const moved = await moveUpload(deps.db, upload.id, from, change, deps.now());
  if (moved && WORKING_STAGES.includes(moved.stage)) await deps.jobs?.imports.enqueue(moved.id);
  ctx.status = 303;
  ctx.redirect(`/settings/import/${upload.id}`);
}

export function importPages(router: Router, deps: Deps): void {
  router.get(
    '/settings/import',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      await startPage(ctx, deps, session, ctx.query.notice === 'cancelled' ? 'The import was cancelled and its file removed.' : undefined);
    }),
  );

  router.post(
    '/settings/import',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const file = await receiveUpload(ctx, session, {
        maxBytes: deps.config.importMaxBytes,
        dir: deps.config.importDir,
        now: deps.now(),
        deadline: { idleMs: deps.config.importUploadIdleMs, totalMs: deps.config.importUploadTimeoutMs },
      });
      const upload = await createUpload(deps.db, session.userId, file, deps.now()).catch(async (error: unknown) => {
        await fs.promises.rm(file.path, { force: true });
        throw error;
      });
      await deps.jobs?.imports.enqueue(upload.id);
      ctx.status = 303;
      ctx.redirect(`/settings/import/${upload.id}`);
    }),
  );

  router.get(
    '/settings/import/:id',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      await importPage(ctx, deps, session, await uploadIn(ctx, deps, session), { change: ctx.query.change === '1' });
    }),
  );

  router.post(
    '/settings/import/:id/check',
    formPage(deps, async (ctx, session, form) => {
      const upload = await uploadIn(ctx, deps, session);
      if (upload.stage !== 'preview' && upload.stage !== 'checked') return importPage(ctx, deps, session, upload);
      const chosen = mappingOf(form, upload.columns ?? [], upload.mapping ?? {});
      if (typeof chosen === 'string') return importPage(ctx, deps, session, upload, { change: true, problem: chosen, status: 400 });
      await moveAndQueue(ctx, deps, upload, ['preview', 'checked'], { stage: 'checking', mapping: chosen.mapping, existing: chosen.existing, dryRun: null });
    }),
  );

  router.post(
    '/settings/import/:id/go',
    formPage(deps, async (ctx, session) => {
      const upload = await uploadIn(ctx, deps, session);
      await moveAndQueue(ctx, deps, upload, ['checked', 'stopped'], { stage: 'running', problem: null });
    }),
  );

  router.post(
    '/settings/import/:id/cancel',
    formPage(deps, async (ctx, session) => {
      const upload = await uploadIn(ctx, deps, session);
      const cancelled = await moveUpload(
        deps.db,
        upload.id,
        ['preview', 'checked', 'stopped'],
        { stage: 'cancelled', filePath: null, progress: null },
        deps.now(),
      );
      if (cancelled && upload.filePath) await fs.promises.rm(upload.filePath, { force: true });
      if (cancelled && upload.runId !== null) await forgetImportFile(deps.db, upload.runId, deps.now());
      ctx.status = 303;
      ctx.redirect(cancelled ? '/settings/import?notice=cancelled' : `/settings/import/${upload.id}`);
    }),
  );
}
