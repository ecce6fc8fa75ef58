import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

/** The folders of a service (docs/architecture.md, "Layers of a service"). */
const LAYERS = ['domain', 'use-cases', 'ports', 'store', 'grpc', 'http', 'consumers', 'publishers', 'events'];
/** Relative import paths into a sibling folder `layer` of a service (package subpaths such as @vrp/platform/grpc are not layers). */
const layerPaths = (layer) => ['./', '../', '../../', '../../../'].flatMap((up) => [`${up}${layer}`, `${up}${layer}/**`]);

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
  // A promise nobody awaits loses its error (an unhandled rejection) and its ordering. Await it,
  // or mark it `void` with a comment saying why it is fire-and-forget and where its errors go.
  // Type-aware: the project service reads the root tsconfig.json (deploy/test sits outside it).
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['deploy/test/*.ts', 'deploy/test/support/*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  // The layers of a service (docs/architecture.md, "Layers of a service"): imports run
  // grpc/consumers -> use-cases -> domain, use-cases -> ports/store/publishers; never back.
  {
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: LAYERS.filter((l) => l !== 'domain').flatMap(layerPaths),
              message: 'domain/ holds pure rules: no store, transport, use case, port, consumer or publisher. Pass what a rule needs as arguments.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/*/src/{use-cases,store,ports}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['grpc', 'http', 'consumers'].flatMap(layerPaths),
              message: 'Transports and consumers call use cases, never the other way round: pass what is needed as a domain input.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/*/src/grpc/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: layerPaths('store'), message: 'grpc/ decodes, calls a use case and encodes: storage is reached through use-cases/.' }] },
      ],
    },
  },
  {
    files: ['services/*/src/publishers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['use-cases', 'consumers'].flatMap(layerPaths),
              message: 'publishers/ encode what use cases hand them: they never call back into use-cases/ or consumers/.',
            },
          ],
        },
      ],
    },
  },
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
