// The API's JSON representation of each resource, built from the services' proto messages.
// The gateway renders responses with these and the webhook service renders event payloads with
// the same functions, so a resource looks the same in a response and in a webhook.
// One module per resource; this index re-exports them.
export * from './listing';
export * from './reservation';
export * from './guest';
export * from './conversation';
export * from './webhook-events';
export {};
