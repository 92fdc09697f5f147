/**
 * The built-in services: rows of `oauth_clients` that own the attributes Daybook writes itself
 * (tracking by hand, the demo generator), seeded with the catalogue by `seedCatalogue`
 * (seed-catalogue.ts).
 */

/** A built-in service row in `oauth_clients` (no secret, never used to sign in). */
export interface BuiltinServiceDef {
  /** `client_id`, the service `name` on the wire. */
  readonly name: string;
  /** The service `label` on the wire. */
  readonly label: string;
  readonly description: string;
}

/** Owner of attributes a person tracks by hand in the web pages (docs/decisions.md, "Values and writes"). */
export const MANUAL_SERVICE: BuiltinServiceDef = {
  name: 'daybook',
  label: 'Daybook',
  description: 'Attributes you track by hand in Daybook.',
};

/** Owner of the demo generator's attributes. */
export const DEMO_SERVICE: BuiltinServiceDef = {
  name: 'daybook-demo',
  label: 'Daybook demo data',
  description: 'Synthetic data generated to show what Daybook does.',
};

/** The built-in services seeded with the catalogue. */
export const BUILTIN_SERVICES: readonly BuiltinServiceDef[] = [MANUAL_SERVICE, DEMO_SERVICE];
