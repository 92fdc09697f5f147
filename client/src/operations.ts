/**
 * Which client method calls each operation of the three OpenAPI documents, by operationId: the
 * factory that creates the client (`createDaybookClient`, `createWebhooksClient`, `createV1Client`,
 * `createOAuthClient`) and the method's name. test/client/coverage.test.ts checks that every
 * operationId of generated/openapi/{v2,v1,oauth}.json is here and that each method exists.
 */
export type ClientFactory = 'createDaybookClient' | 'createWebhooksClient' | 'createV1Client' | 'createOAuthClient';

export interface OperationMethod {
  factory: ClientFactory;
  /** The methods that send the operation (the token endpoint has two: the code exchange and the refresh). */
  methods: readonly string[];
}

const on = (factory: ClientFactory, ...methods: string[]): OperationMethod => ({ factory, methods });

export const operationMethods: Record<'v2' | 'v1' | 'oauth', Record<string, OperationMethod>> = {
  v2: {
    listAttributeTemplates: on('createDaybookClient', 'templates'),
    listAttributes: on('createDaybookClient', 'attributes'),
    listAttributesWithValues: on('createDaybookClient', 'attributesWithValues'),
    listAttributeValues: on('createDaybookClient', 'values'),
    listOwnedAttributes: on('createDaybookClient', 'owned'),
    updateAttributeValues: on('createDaybookClient', 'update'),
    incrementAttributeValues: on('createDaybookClient', 'increment'),
    acquireAttributes: on('createDaybookClient', 'acquire'),
    releaseAttributes: on('createDaybookClient', 'release'),
    createAttributes: on('createDaybookClient', 'create'),
    listCorrelations: on('createDaybookClient', 'correlations'),
    getCorrelationCombo: on('createDaybookClient', 'correlationCombo'),
    listAverages: on('createDaybookClient', 'averages'),
    listInsights: on('createDaybookClient', 'insights'),
    getProfile: on('createDaybookClient', 'profile'),
    createSimpleToken: on('createDaybookClient', 'simpleToken'),
    listWebhooks: on('createWebhooksClient', 'list'),
    createWebhook: on('createWebhooksClient', 'create'),
    getWebhook: on('createWebhooksClient', 'get'),
    updateWebhook: on('createWebhooksClient', 'update'),
    deleteWebhook: on('createWebhooksClient', 'delete'),
    rotateWebhookSecret: on('createWebhooksClient', 'rotateSecret'),
    listWebhookDeliveries: on('createWebhooksClient', 'deliveries'),
    resendWebhookDelivery: on('createWebhooksClient', 'resend'),
    sendWebhookTestEvent: on('createWebhooksClient', 'sendTestEvent'),
  },
  v1: {
    getUserProfile: on('createV1Client', 'profile'),
    getUserToday: on('createV1Client', 'today'),
    listUserAttributes: on('createV1Client', 'attributes'),
    listUserAttributeValues: on('createV1Client', 'attributeValues'),
    listUserInsights: on('createV1Client', 'insights'),
    listUserAttributeInsights: on('createV1Client', 'attributeInsights'),
    listUserAverages: on('createV1Client', 'averages'),
    listUserAttributeAverages: on('createV1Client', 'attributeAverages'),
    createSimpleToken: on('createV1Client', 'simpleToken'),
  },
  oauth: {
    // The authorisation page is the person's browser's: the client builds the URL to send them to,
    // and the page itself submits the consent form (its operation is the browser's, not an app's).
    showAuthorizationPage: on('createOAuthClient', 'authorizeUrl'),
    submitAuthorizationConsent: on('createOAuthClient', 'authorizeUrl'),
    createAccessToken: on('createOAuthClient', 'exchangeCode', 'refresh'),
    revokeToken: on('createOAuthClient', 'revoke'),
    getAuthorizationServerMetadata: on('createOAuthClient', 'discover'),
  },
};
