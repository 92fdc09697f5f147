/**
 * The layers of docs/architecture.md, checked by `npm run lint:deps` (part of `npm test`).
 * A request flows one way: pages and handlers (api/, web/, oauth/) -> domain/ -> data (db/, knex);
 * http/ is the glue around the handlers; analytics/ computes derived data from the domain's
 * tables, and its statistics are pure functions over arrays; jobs/ is the job queue and its
 * schedules; demo/ generates the demo account's data; bin/ holds the processes' entry points.
 * The typed client (client/src/, the @daybook/client package) stands apart: it is installed on its
 * own, so it imports nothing of the service or of generated/, and the service imports nothing of it.
 */
const HANDLERS = '^src/(api|web|oauth)/';
const PURE_STATISTICS = '^src/analytics/(stats/|insights/|averages[.]ts|correlations[.]ts|phrasing[.]ts|week[.]ts|series[.]ts)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Modules import each other one way only.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-below-the-edges',
      comment: 'The rules (domain/) know nothing of HTTP, pages, OAuth endpoints, derived data, the job runner, the demo generator or the processes.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/(http|api|web|oauth|analytics|jobs|demo|bin|tools)/|^src/(app|deps)[.]ts$' },
    },
    {
      name: 'statistics-are-pure',
      comment: 'The statistics read arrays: no database, HTTP, jobs or process state.',
      severity: 'error',
      from: { path: PURE_STATISTICS },
      to: {
        path: '^src/(db/knex|db/migrat|http/|api/|web/|oauth/|jobs/|bin/|demo/|analytics/(store|derive|load|run-many))|^src/(deps|database|config)[.]ts$|(^|/)node_modules/(knex|pg|pg-boss|koa)/',
      },
    },
    {
      name: 'handlers-write-no-sql',
      comment: 'Handlers and pages call domain functions; only the domain and the data layer hold SQL.',
      severity: 'error',
      from: { path: HANDLERS },
      to: { path: '^src/db/(knex|migrat|embedded)|(^|/)node_modules/(knex|pg)/' },
    },
    {
      name: 'oauth-does-not-import-web',
      comment: 'The consent page is rendered through a page function the web layer gives the OAuth endpoints.',
      severity: 'error',
      from: { path: '^src/oauth/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'http-glue-knows-no-jobs',
      comment: 'The HTTP glue is handed what it reports; it does not reach into the job runner.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(analytics|jobs|bin|api|web|oauth)/' },
    },
    {
      name: 'data-is-the-bottom',
      comment: 'The data layer (knex, migrations, catalogue) knows nothing of the rules or the edges above it.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(domain|http|api|web|oauth|analytics|jobs|demo|bin|tools)/|^src/(app|deps)[.]ts$' },
    },
    {
      name: 'entry-points-are-not-imported',
      comment: 'src/bin/ holds the processes (server, worker, admin, derive): started by node, imported by nothing in src/.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/bin/' },
    },
    {
      name: 'the-client-package-stands-alone',
      comment: 'client/ is installed on its own (npm pack): it cannot reach the service or ../generated (client/README.md).',
      severity: 'error',
      from: { path: '^client/src/' },
      to: { path: '^(src|generated|test|contracts)/' },
    },
    {
      name: 'the-service-does-not-use-the-client',
      comment: 'The client is for partners (and the tests); the service never calls itself through it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^client/' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      from: { orphan: true, pathNot: ['[.]d[.]ts$', '(^|/)tsconfig[.]json$', '^src/tools/.*[.]mjs$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: { path: '^src/|^client/src/|node_modules/(knex|pg|pg-boss|koa)/' },
  },
};
