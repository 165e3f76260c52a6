// @ts-check
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/**
 * Lint rules, including the ones that keep dependencies flowing one way:
 *   packages/*  -> nothing of apps/
 *   apps/web    -> packages/contracts only (never the server)
 *   modules' services and repositories -> never the HTTP layer; only repositories touch SQL.
 */
const restrict = (patterns) => ['error', { patterns }];

export default tseslint.config(
  // The WebAssembly kernels are AssemblyScript (its own types and decorators); asc checks them.
  { ignores: ['**/dist/**', '**/node_modules/**', 'apps/server/drizzle/**', 'coverage/**', 'packages/mesh/assembly/kernels.ts', 'packages/mesh/assembly/layers.ts'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**', 'e2e/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['packages/**'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['**/apps/**', '@layerline/server', '@layerline/web'], message: 'Packages must not depend on apps.' },
      ]),
    },
  },
  {
    files: ['apps/web/**'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': restrict([
        { group: ['**/server/**', '@layerline/server', 'drizzle-orm', 'pg', 'fastify'], message: 'The web app talks to the server only over HTTP.' },
      ]),
    },
  },
  {
    files: ['apps/server/src/modules/**/*-service.ts', 'apps/server/src/modules/**/*-repository.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['**/http/**', 'fastify', '@fastify/*'], message: 'Services and repositories do not know about HTTP.' },
        { group: ['**/integrations/**'], message: 'Modules reach vendors through the port they declare.' },
      ]),
    },
  },
  {
    files: ['apps/server/src/modules/**/*-service.ts', 'apps/server/src/modules/**/*-routes.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['drizzle-orm', 'drizzle-orm/*', 'pg', '**/db/schema.ts', '**/*-schema.ts'], message: 'Only repositories touch SQL.' },
        { group: ['**/http/app.ts'], message: 'Routes are registered by the app, not the other way round.' },
      ]),
    },
  },
);
