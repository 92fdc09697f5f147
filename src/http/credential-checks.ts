/**
 * When each operation's credentials are checked and the request counted (docs/request-path.md,
 * "Credentials seen recently"), declared once per operation of every document:
 *
 * - `before`: before the handler runs, by the credentials' lookup (or, for a credential seen in the
 *   last minute, by its recheck in a statement of its own).
 * - `first-statement`: for a credential seen in the last minute, by the handler's first statement:
 *   the request's database handle (src/db/database.ts) carries the recheck and the count, so a
 *   steady client's request is one statement in all. The handler must run its domain functions on
 *   that handle (`databaseOf(ctx)`); nothing runs before the check, and when the check stops the
 *   request nothing was read out or written. An operation without a statement of its own (the
 *   profile) has its check run alone after the handler, before its answer leaves.
 *
 * The maps are typed by the generated operation lists, so a new operation does not compile until
 * it has a mode; `checkCredentialModes` also refuses to start when a document and its map differ.
 */
import type { ApiName } from './documents';
import type { OAuthOperations, V1Operations, V2Operations } from './operation';

export type CredentialCheck = 'before' | 'first-statement';

const V2: Record<keyof V2Operations, CredentialCheck> = {
  listAttributeTemplates: 'before',
  listAttributes: 'first-statement',
  listAttributesWithValues: 'first-statement',
  listAttributeValues: 'first-statement',
  listOwnedAttributes: 'before',
  updateAttributeValues: 'first-statement',
  incrementAttributeValues: 'first-statement',
  acquireAttributes: 'first-statement',
  releaseAttributes: 'before',
  createAttributes: 'first-statement',
  listCorrelations: 'first-statement',
  getCorrelationCombo: 'before',
  listAverages: 'before',
  listInsights: 'before',
  getProfile: 'first-statement',
  createSimpleToken: 'before',
  listWebhooks: 'before',
  createWebhook: 'before',
  getWebhook: 'before',
  updateWebhook: 'before',
  deleteWebhook: 'before',
  rotateWebhookSecret: 'before',
  listWebhookDeliveries: 'before',
  resendWebhookDelivery: 'before',
  sendWebhookTestEvent: 'before',
};

const V1: Record<keyof V1Operations, CredentialCheck> = {
  getUserProfile: 'before',
  getUserToday: 'before',
  listUserAttributes: 'before',
  listUserAttributeValues: 'before',
  listUserInsights: 'before',
  listUserAttributeInsights: 'before',
  listUserAverages: 'before',
  listUserAttributeAverages: 'before',
  createSimpleToken: 'before',
};

const OAUTH: Record<keyof OAuthOperations, CredentialCheck> = {
  showAuthorizationPage: 'before',
  submitAuthorizationConsent: 'before',
  createAccessToken: 'before',
  revokeToken: 'before',
  getAuthorizationServerMetadata: 'before',
};

export const CREDENTIAL_CHECKS: Record<ApiName, Readonly<Record<string, CredentialCheck>>> = { v2: V2, v1: V1, oauth: OAUTH };

/** The mode of an operation of a document (`before` for an operation the document does not have: it is answered 404/405 anyway). */
export function credentialCheckOf(api: ApiName, operationId: string | undefined): CredentialCheck {
  const modes = CREDENTIAL_CHECKS[api];
  return operationId !== undefined && Object.hasOwn(modes, operationId) ? modes[operationId] : 'before';
}

/** At start-up: every operation of the document has a mode, and every mode an operation. */
export function checkCredentialModes(api: ApiName, operationIds: readonly string[]): void {
  const declared = Object.keys(CREDENTIAL_CHECKS[api]);
  const missing = operationIds.filter((id) => !declared.includes(id));
  const unknown = declared.filter((id) => !operationIds.includes(id));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(
      `The ${api} document and its credential checks (http/credential-checks.ts) differ:` +
        (missing.length > 0 ? ` operations without a mode: ${missing.join(', ')}.` : '') +
        (unknown.length > 0 ? ` modes for no operation: ${unknown.join(', ')}.` : ''),
    );
  }
}
