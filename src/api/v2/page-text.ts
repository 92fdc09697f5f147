/**
 * A list's answer whose results are JSON text already (the attribute lists, `listAttributesText`:
 * docs/request-path.md, "Issue 35, fourth stop"): the envelope's fields written around the text as
 * `JSON.stringify` writes the envelope object (a count, two links or nulls, then the results), with
 * the headers `answerJson` (http/json-body.ts) sets. The envelope is made by `envelope` as for every
 * list (the check of a page past the end, the links); only the results' length is read.
 */
import type Koa from 'koa';
import { envelope, type Paging } from '../../http/paging';

/** A page of objects as JSON text: the objects on the page (`shown`), the matching ones (`count`), and the page's JSON array. */
export interface PageText {
  count: number;
  shown: number;
  results: string;
}

/** Answers the page: status 200 unless one was set, `application/json; charset=utf-8`. */
export function answerPageText(ctx: Koa.Context, p: Paging, page: PageText): void {
  const { count, next, previous } = envelope(ctx, p, page.count, new Array<never>(page.shown));
  ctx.response.set('Content-Type', 'application/json; charset=utf-8');
  ctx.response.body = `{"count":${count},"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":${page.results}}`;
}
