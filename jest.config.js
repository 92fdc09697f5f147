/**
 * Tests run against a real PostgreSQL: global-setup starts one embedded cluster per jest worker
 * (or uses DATABASE_URL's server) with a migrated, seeded template database; each test file clones
 * its own database from the template, so files start clean and run in parallel.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.tsx?$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // d3-scale and d3-shape (and what they import) and oauth4webapi (the standards-strict OAuth
    // client of test/oauth/standard-client.test.ts) are ES modules only: compiled to CommonJS for jest.
    '^.+\\.m?js$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(d3-[^/]+|internmap|oauth4webapi)/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/contracts/**/*.pact.spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The known-heaviest files start first, so that none of them starts last on a fresh clone.
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  maxWorkers: process.env.JEST_WORKERS ? Number(process.env.JEST_WORKERS) : 2,
  testTimeout: 30000,
  errorOnDeprecated: true,
};
