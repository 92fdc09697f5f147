/**
 * The harness's own check (test/support/contract.ts): every integration test relies on it to fail
 * a response its document does not describe, so it must refuse each kind of mismatch, not only let
 * good answers through.
 */
import { assertDocumented, type ObservedResponse } from '../support/contract';

const profile = {
  username: 'alice',
  first_name: 'Alice',
  last_name: 'Liddell',
  avatar: 'https://example.org/a.png',
  timezone: 'Europe/Berlin',
  local_time: '2026-11-27T10:00:00+01:00',
  imperial_distance: false,
  imperial_weight: false,
  imperial_energy: false,
  imperial_liquid: false,
  imperial_temperature: false,
  trial: false,
  delinquent: false,
};

const answer = (changes: Partial<ObservedResponse>): ObservedResponse => ({
  method: 'GET',
  path: '/api/2/accounts/profile/',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  body: profile,
  location: null,
  ...changes,
});

test('a documented answer passes', async () => {
  await expect(assertDocumented(answer({}))).resolves.toBeUndefined();
});

test('a body missing a required field, or with a field of the wrong type, fails', async () => {
  const { username: _left, ...withoutName } = profile;
  await expect(assertDocumented(answer({ body: withoutName }))).rejects.toThrow(/body does not match getProfile/);
  await expect(assertDocumented(answer({ body: { ...profile, trial: 'no' } }))).rejects.toThrow(/does not match/);
});

test('a status or media type the operation does not document fails', async () => {
  await expect(assertDocumented(answer({ status: 418 }))).rejects.toThrow(/status 418 is not documented/);
  await expect(assertDocumented(answer({ contentType: 'text/html' }))).rejects.toThrow(/media type "text\/html" is not documented/);
});

test('an answer outside every document fails unless it is an error body or a trailing-slash redirect', async () => {
  await expect(assertDocumented(answer({ path: '/api/2/nowhere/', status: 200 }))).rejects.toThrow(/no document describes/);
  await expect(assertDocumented(answer({ path: '/api/2/nowhere/', status: 404, body: { detail: 'Not found.' } }))).resolves.toBeUndefined();
  await expect(assertDocumented(answer({ path: '/api/2/nowhere/', status: 404, body: { nothing: true } }))).rejects.toThrow(/JSON error body/);
});
