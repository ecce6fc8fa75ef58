// The zod schemas of the API, one module per resource. They validate requests in the gateway,
// give the renderers their Api* types (z.infer) and generate the OpenAPI document.
export * from './common';
export * from './listing';
export * from './listing-data';
export * from './reservation';
export * from './guest';
export * from './webhook';
export * from './event';
export * from './connection';
export * from './dead-letter';
export * from './workspace-settings';
