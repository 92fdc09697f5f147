/** Query helpers the v1 handlers share. */
import type { Context as ApiContext } from 'openapi-backend';
import { queryList } from '../../http/query';

/** A comma-separated list of names; sent empty (`groups=`) it is the same as not sent. */
export function names(c: ApiContext, name: string): string[] | undefined {
  const list = queryList(c, name);
  return list && list.length > 0 ? list : undefined;
}
