// The API's vocabulary and its resources, once for the gateway and every service:
// - ./vocabulary: every enum, pattern and limit (the services' domain rules and mongoose
//   schemas import the same constants);
// - ./schemas: the zod schemas that validate requests and generate the OpenAPI document;
// - one renderer module per resource: the API's JSON representation of each resource, built
//   from the services' proto messages and typed by its schema (z.infer). The gateway renders
//   responses with these and the webhook service renders event payloads with the same
//   functions, so a resource looks the same in a response and in a webhook.
export * from './vocabulary';
export * from './schemas';
export * from './listing';
export * from './listing-data';
export * from './reservation';
export * from './guest';
export * from './conversation';
export * from './webhook';
export * from './admin';
export * from './webhook-events';
export { checkPmsInput, normalizePmsText } from './pms-input';
