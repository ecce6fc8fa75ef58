export * from './catalog';
export * from './app-error';
export * from './store-failures';
export * from './grpc';
