/**
 * The client has a method for every operation of the v2, v1 and OAuth documents
 * (client/src/operations.ts says which): an operation added to a document without a method in
 * the client fails here, by name.
 */
import { createDaybookClient, createOAuthClient, createV1Client, createWebhooksClient, operationMethods, type ClientFactory } from '../../client/src';
import { APIS, documentOf } from './operations';

const baseUrl = 'https://daybook.example.org';
const clients: Record<ClientFactory, object> = {
  createDaybookClient: createDaybookClient({ baseUrl }),
  createWebhooksClient: createWebhooksClient({ baseUrl, clientId: 'app', clientSecret: 'secret' }),
  createV1Client: createV1Client({ baseUrl }),
  createOAuthClient: createOAuthClient({ baseUrl, clientId: 'app' }),
};

test.each(APIS)('every %s operation has a client method', (api) => {
  const document = documentOf(api);
  const operationIds = Object.values<any>(document.paths).flatMap((item) =>
    Object.values<any>(item)
      .map((operation) => operation?.operationId)
      .filter(Boolean),
  );
  const missing = operationIds.filter((id: string) => {
    const entry = operationMethods[api][id];
    return !entry || !entry.methods.every((method) => typeof (clients[entry.factory] as Record<string, unknown>)[method] === 'function');
  });
  expect(missing).toEqual([]);
});
