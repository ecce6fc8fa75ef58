import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'packages/contracts/src/gen/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  { files: ['scripts/**', 'bench/**', 'packages/stack/src/main.ts', '**/*.test.ts', '.ci/**'], rules: { 'no-console': 'off' } },
  // e2e/ is black-box (docs/architecture.md, "e2e is black-box"): a test speaks HTTP to the API,
  // the admin API and the PMS simulator's control API; data never comes from a service, a gRPC
  // client, the bus or a database. Cases that need internals live in component tests or in
  // packages/stack/test.
  {
    files: ['e2e/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@vrp/platform', message: 'e2e/ is black-box: no platform engines, clients or bus.' },
            {
              name: '@vrp/pms-simulator',
              allowImportNames: ['SimulatorControl'],
              message: 'e2e/ drives the simulator through its control API (SimulatorControl) only.',
            },
            { name: '@vrp/stack', message: 'Boot the stack through e2e/support/stack.ts (startTestStack).' },
          ],
          patterns: [
            {
              // @vrp/sdk is an HTTP client of the public API, as an integrator uses it.
              group: ['@vrp/*', '!@vrp/pms-simulator', '!@vrp/stack', '!@vrp/sdk'],
              message: 'e2e/ is black-box: no service, contract, capability matrix or gRPC code; use the HTTP API.',
            },
            {
              group: ['mongoose', 'kafkajs', '@grpc/*', '**/services/**', '**/packages/**', '**/tools/**'],
              message: 'e2e/ is black-box: no database, bus, gRPC or source of a service; use the HTTP API.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='stack']",
          message: 'e2e/ is black-box: use the TestStack fields (baseUrl, admin, api, pms, demoListingIds), not the in-process stack.',
        },
      ],
    },
  },
  // The harness boots the stack in process (what the tests do stays HTTP).
  { files: ['e2e/support/stack.ts', 'e2e/support/crash-child.ts'], rules: { '@typescript-eslint/no-restricted-imports': 'off' } },
  // Formatting is prettier's (pnpm format); eslint keeps the rules about code.
  prettier,
);
