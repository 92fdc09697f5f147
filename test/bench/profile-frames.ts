/**
 * What the profile summaries (profile-summary.ts for CPU, alloc-summary.ts for allocations) count
 * as our own code: a frame of a compiled file under dist/src or dist/test. A library's or Node's
 * frame is charged to the nearest own frame above it.
 */
export const isOwnCode = (url: string): boolean => /\/dist\/(src|test)\//.test(url);
