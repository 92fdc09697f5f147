/**
 * Every operation of every document has its handler: the handler maps are typed by operationId
 * (src/http/operation.ts), and the backend refuses to be built without one, so an operation is
 * never answered 501 at run time.
 */
import { createBackend, loadBundle, type ApiName, type OperationHandler } from '../../src/http/backends';

function operationIds(name: ApiName): string[] {
  const paths = loadBundle(name).paths ?? {};
  return Object.values(paths).flatMap((item) =>
    Object.values(item ?? {}).flatMap((op) => (op && typeof op === 'object' && 'operationId' in op ? [String(op.operationId)] : [])),
  );
}

const answers: OperationHandler = (_c, ctx) => {
  ctx.status = 204;
};

test.each(['v2', 'v1', 'oauth'] as ApiName[])('the %s backend is not built when an operation of the document has no handler', async (name) => {
  const [left, ...others] = operationIds(name);
  const handlers = Object.fromEntries(others.map((id) => [id, answers]));
  await expect(createBackend(name, handlers)).rejects.toThrow(`The ${name} document has operations without a handler: ${left}.`);
  await expect(createBackend(name, { ...handlers, [left]: answers })).resolves.toMatchObject({ name });
});
