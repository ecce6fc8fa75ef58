// A service process: its start and stop (run.ts), its configuration and engines (main.ts), and
// the parts every service starts with (base.ts).
export * from './run';
export * from './main';
export * from './base';
