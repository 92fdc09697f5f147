/**
 * Handlers typed from the contract. For each document, `generated/types/<doc>.ts` (openapi-typescript)
 * lists every operation by operationId with its parameters, body and responses; the types here turn
 * one operation into the context its handler receives, so that reading a parameter the document
 * does not declare, or answering a body it does not describe, is a compile error:
 *
 *   async listAttributes(c: V2Operation<'listAttributes'>['context'], ctx: V2Operation<'listAttributes'>['ctx'])
 *
 * A handler map is typed `Handlers<operations>`: it must hold a handler for every operationId of the
 * document (a missing one does not compile, and createBackend refuses to start without one).
 */
import type Koa from 'koa';
import type { Context as ApiContext } from 'openapi-backend';
import type { operations as V2DocumentOperations, webhooks as V2Webhooks } from '../../generated/types/v2';
import type { operations as V1Operations } from '../../generated/types/v1';
import type { operations as OAuthOperations } from '../../generated/types/oauth';

type Field<T, K extends string> = T extends { [key in K]?: infer V } ? Exclude<V, undefined> : never;
type Params<O, In extends 'query' | 'path'> = [Field<Field<O, 'parameters'>, In>] extends [never] ? Record<string, never> : Field<Field<O, 'parameters'>, In>;

/** The JSON (or form) body of an operation's request; never when it takes none. */
export type RequestBodyOf<O> = Field<Field<O, 'requestBody'>, 'content'> extends infer C ? C[keyof C] : never;

/** The bodies of an operation's success answers (2xx), any media type; undefined for an answer without one. */
export type SuccessBodyOf<O> = {
  [S in keyof Field<O, 'responses'>]: S extends 200 | 201 | 202 | 204 | 301 | 302 | 303 | 307 | 308
    ? Field<Field<O, 'responses'>[S], 'content'> extends infer C
      ? [C] extends [never]
        ? undefined
        : C[keyof C]
      : never
    : never;
}[keyof Field<O, 'responses'>];

/**
 * One operation as its handler sees it: `context` is openapi-backend's context with the operation's
 * path parameters, query parameters (names as the document declares them; values as the client
 * sent them, strings, read through src/http/query.ts) and request body; `ctx` is Koa's context whose
 * `body` only takes what the document says the operation answers.
 */
export interface OperationTypes<O> {
  context: ApiContext<RequestBodyOf<O>, Params<O, 'path'>, { [K in keyof Params<O, 'query'>]?: string | string[] }>;
  ctx: Koa.Context & { body: SuccessBodyOf<O> };
  /** The success body, for building it before assigning. */
  body: SuccessBodyOf<O>;
}

/** A handler of operation `O`. */
export type TypedHandler<O> = (c: OperationTypes<O>['context'], ctx: OperationTypes<O>['ctx']) => Promise<void> | void;

/** A handler for every operation of a document, keyed by operationId. */
export type Handlers<Ops> = { [Id in keyof Ops]: TypedHandler<Ops[Id]> };

/**
 * The v2 document's `webhooks` section (docs/webhooks.md) describes requests Daybook sends to apps,
 * not operations it serves: they have no handler.
 */
type SentWebhook = NonNullable<V2Webhooks[keyof V2Webhooks]['post']>;
type V2Operations = { [Id in keyof V2DocumentOperations as V2DocumentOperations[Id] extends SentWebhook ? never : Id]: V2DocumentOperations[Id] };

export type V2Operation<Id extends keyof V2Operations> = OperationTypes<V2Operations[Id]>;
export type V1Operation<Id extends keyof V1Operations> = OperationTypes<V1Operations[Id]>;
export type OAuthOperation<Id extends keyof OAuthOperations> = OperationTypes<OAuthOperations[Id]>;
export type { V2Operations, V1Operations, OAuthOperations };
