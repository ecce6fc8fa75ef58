export { startStack, startGatewayProcess, DEV_ADMIN_TOKEN, type Stack, type StackEngines, type StackOptions } from './stack';
export { DEMO_API_KEY, DEMO_RATE_LIMITS, type DemoSeed } from './demo';
export { SERVICE_NAMES, type ServiceName } from './services';
export { ManualClock, type WebhookClock } from '@vrp/webhook';
