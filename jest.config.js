// One jest setup for the whole workspace. TypeScript is stripped by SWC (no type checking
// here: `pnpm typecheck` does that once), which keeps the suite fast on two cores.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }] },
  testMatch: ['<rootDir>/{packages,services,tools,e2e,examples,deploy,sdk,scripts}/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 30000,
  // Two workers on this 2-core machine (jest's default is cores - 1: one, so the suites ran one
  // after another, 300 s). Most suites wait on timers, child processes and sockets, so two side
  // by side take 165 s instead; the tests wait for conditions, never for fixed sleeps.
  maxWorkers: 2,
  // Every memory bus redelivers in tests (duplicates, lazy commits): consumers must be idempotent.
  setupFiles: ['<rootDir>/scripts/jest-setup.ts'],
};
