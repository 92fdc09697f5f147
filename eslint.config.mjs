// ESLint with typescript-eslint (run by `npm run lint`, part of `npm test`). The rule set is the
// recommended one, without type information (fast), plus the layer rule dependency-cruiser cannot
// see: handlers and pages do not build SQL on `deps.db` (docs/architecture.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Query-builder calls a handler or page must leave to a domain function. */
const NO_SQL_IN_HANDLERS = [
  {
    selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='db']",
    message: 'Handlers and pages call domain functions; SQL lives in src/domain/ (docs/architecture.md).',
  },
  {
    selector: "CallExpression[callee.object.property.name='db'][callee.property.name=/^(transaction|raw|select|insert|update|delete|from)$/]",
    message: 'Handlers and pages call domain functions; SQL lives in src/domain/ (docs/architecture.md).',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'generated/**', 'node_modules/**', 'coverage/**', '.data/**', 'contracts/pacts/**', 'test/bench/results/**'] },
  // The client package's build output and its copy of the generated types (client/README.md).
  { ignores: ['client/dist/**', 'client/src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Test helpers read JSON answers whose shape the test asserts next: \`any\` is the honest type there.
    files: ['test/**/*.ts', 'contracts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/api/**/*.ts', 'src/web/**/*.ts', 'src/oauth/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...NO_SQL_IN_HANDLERS] },
  },
);
