/**
 * Do the pacts agree with the documents? Checked with PactFlow's maintained comparator,
 * `@pactflow/openapi-pact-comparator` (the engine behind PactFlow's bi-directional contract
 * testing; docs/decisions.md, "Contracts as the ecosystem runs them"):
 *
 * - HTTP interactions go to the bundled OpenAPI document of their path (`/api/2/` v2, `/api/1/`
 *   v1, `/oauth2/` OAuth), each pact split by document;
 * - message interactions (Pact V4 asynchronous messages: the webhook events a receiver relies on)
 *   go to an AsyncAPI 3 view of the v2 document's `webhooks` section (asyncApiOfWebhooks), matched
 *   by the interaction's `AsyncAPI` `operationId` reference (the webhook's operationId).
 *
 * The comparator reads a response schema as closed (a property the document does not name is an
 * error, whatever `additionalProperties` says): a consumer may only rely on what the document
 * promises. Errors and warnings are reported; informational results are not.
 */
import { Comparator, type Result } from '@pactflow/openapi-pact-comparator';
import { apiFor, loadBundle, type ApiName } from '../../src/http/backends';

/** A pact file as far as the check needs it. */
export interface PactDocument {
  consumer: { name: string };
  provider: { name: string };
  interactions: Array<Record<string, unknown> & { description: string; type?: string; request?: { path: string } }>;
  metadata?: Record<string, unknown>;
}

type Document = ReturnType<typeof loadBundle>;
type Webhook = { post: { operationId: string; parameters?: Array<{ $ref: string }>; requestBody: { content: Record<string, { schema: unknown }> } } };

const comparators = new Map<string, Comparator>();

function comparatorFor(key: ApiName | 'webhooks'): Comparator {
  let comparator = comparators.get(key);
  if (!comparator) {
    comparator = key === 'webhooks' ? new Comparator({ asyncapi: asyncApiOfWebhooks(loadBundle('v2')) }) : new Comparator({ oas: loadBundle(key) as never });
    comparators.set(key, comparator);
  }
  return comparator;
}

/**
 * The v2 document's webhooks as an AsyncAPI 3 document: one channel and one `receive` operation per
 * event (the operation named by the webhook's operationId), the message's payload the event's
 * schema and its headers the signature headers the webhook declares (plus `content-type`). The
 * schemas are the v2 document's own components, so `$ref`s resolve unchanged.
 */
export function asyncApiOfWebhooks(v2: Document): Record<string, unknown> {
  const parameters = (v2.components?.parameters ?? {}) as Record<string, { name: string; required?: boolean; schema: unknown }>;
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const [event, webhook] of Object.entries((v2 as { webhooks?: Record<string, Webhook> }).webhooks ?? {})) {
    const headers = (webhook.post.parameters ?? []).map((p) => parameters[p.$ref.split('/').pop()!]);
    const message = {
      name: event,
      contentType: 'application/json',
      payload: webhook.post.requestBody.content['application/json'].schema,
      headers: {
        type: 'object',
        required: headers.filter((h) => h.required).map((h) => h.name),
        properties: { ...Object.fromEntries(headers.map((h) => [h.name, h.schema])), 'content-type': { type: 'string', const: 'application/json' } },
      },
    };
    channels[event] = { address: event, messages: { [event]: message } };
    operations[webhook.post.operationId] = {
      action: 'receive',
      channel: { $ref: `#/channels/${event}` },
      messages: [{ $ref: `#/channels/${event}/messages/${event}` }],
    };
  }
  return {
    asyncapi: '3.0.0',
    info: { title: `${v2.info.title}: webhooks`, version: v2.info.version },
    channels,
    operations,
    components: { schemas: v2.components?.schemas ?? {} },
  };
}

/** Where an interaction is checked: the document of its path, or the webhooks for a message. */
function documentOf(interaction: PactDocument['interactions'][number]): ApiName | 'webhooks' | undefined {
  if (interaction.type === 'Asynchronous/Messages') return 'webhooks';
  return interaction.request ? apiFor(interaction.request.path) : undefined;
}

/** One readable line per result: the interaction, the code and message, and where in the document. */
function describe(result: Result): string {
  const where = result.specDetails?.location ? ` (${result.specDetails.location})` : '';
  const causes = (result.causes ?? []).map((cause) => `; ${cause.message} at ${cause.mockDetails?.location ?? '?'}`).join('');
  return `"${result.mockDetails?.interactionDescription ?? '?'}": ${result.type} ${result.code}: ${result.message}${causes}${where}`;
}

/** The errors and warnings of comparing every interaction of `pact` with its document; empty when they agree. */
export async function comparePact(pact: PactDocument): Promise<string[]> {
  const problems: string[] = [];
  const groups = new Map<ApiName | 'webhooks', PactDocument['interactions']>();
  for (const interaction of pact.interactions) {
    const key = documentOf(interaction);
    if (!key) {
      problems.push(`"${interaction.description}": under none of the documents (/api/2/, /api/1/, /oauth2/, webhooks)`);
      continue;
    }
    groups.set(key, [...(groups.get(key) ?? []), interaction]);
  }
  for (const [key, interactions] of groups) {
    for await (const result of comparatorFor(key).compare({ ...pact, interactions } as never)) {
      if (result.type !== 'info') problems.push(`${key}: ${describe(result)}`);
    }
  }
  return problems;
}
