export * from './failure';
export * from './dead-letter-store';
export * from './runner';
export * from './grpc';
export * from './pms-sync';
