/**
 * Standard Webhooks signatures (docs/webhooks.md, "Signatures"): the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, the key is the base64 part of the secret after
 * `whsec_`, the signature `v1,<base64 HMAC-SHA256>`; several signatures (during a secret rotation)
 * are separated by spaces.
 */
import crypto from 'node:crypto';

export function signatureFor(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt, signed with every secret given (current first). */
export function signedHeaders(secrets: string[], messageId: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signatureFor(secret, messageId, timestamp, body)).join(' '),
  };
}
