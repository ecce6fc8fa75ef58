export * from './catalog';
export * from './app-error';
