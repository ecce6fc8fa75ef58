// One jest setup for the whole workspace. TypeScript is stripped by SWC (no type checking
// here: `pnpm typecheck` does that once), which keeps the suite fast on two cores.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }] },
  testMatch: ['<rootDir>/{packages,services,tools,e2e,examples,deploy}/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 30000,
  // Every memory bus redelivers in tests (duplicates, lazy commits): consumers must be idempotent.
  setupFiles: ['<rootDir>/scripts/jest-setup.ts'],
};
