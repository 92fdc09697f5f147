/**
 * Paging helpers: walk a paged list by following each page's `next` URL. `next` keeps every query
 * parameter of the request and sets `page`; its query is sent again through the same typed list
 * call, so the client's base URL, credentials and token refresh apply to every page.
 */
import type { ApiFailure, ApiResult, ApiSuccess } from './result';

/** The paged list envelope (openapi/common/schemas/Paged.yaml: count, next, previous, results). */
export interface PagedList<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A typed list call of the client (e.g. `client.values`). */
export type ListCall<Q, T, E> = (query: Q) => Promise<ApiResult<PagedList<T>, E>>;

/** The query of the page a `next` URL points at, as the list call takes it. */
export function queryOfNext<Q>(next: string): Q {
  return Object.fromEntries(new URL(next).searchParams.entries()) as Q;
}

/**
 * Yields each page, from the one `query` asks for to the last. A page that fails is yielded as
 * its failure, and the walk stops there.
 */
export async function* pages<Q, T, E>(list: ListCall<Q, T, E>, query: Q): AsyncGenerator<ApiResult<PagedList<T>, E>, void, undefined> {
  let current: Q | undefined = query;
  while (current !== undefined) {
    const page: ApiResult<PagedList<T>, E> = await list(current);
    yield page;
    if (!page.ok || page.data.next === null) return;
    current = queryOfNext<Q>(page.data.next);
  }
}

/**
 * Every result of every page, in order, as one success (status and rate limit of the last page),
 * or the first page's failure.
 */
export async function all<Q, T, E>(list: ListCall<Q, T, E>, query: Q): Promise<ApiSuccess<T[]> | ApiFailure<E>> {
  const results: T[] = [];
  let last: ApiSuccess<PagedList<T>> | undefined;
  for await (const page of pages(list, query)) {
    if (!page.ok) return page;
    results.push(...page.data.results);
    last = page;
  }
  return { ...last!, data: results };
}
