// Generated gRPC services and event messages (ts-proto over proto/), one namespace per proto
// file. Regenerate with `pnpm proto`; CI fails when the generated code drifts.
export * as common from './gen/vrp/common/v1/common';
export * as listing from './gen/vrp/listing/v1/listing';
export * as listingEvents from './gen/vrp/listing/v1/events';
export * as reservation from './gen/vrp/reservation/v1/reservation';
export * as reservationEvents from './gen/vrp/reservation/v1/events';
export * as guest from './gen/vrp/guest/v1/guest';
export * as guestEvents from './gen/vrp/guest/v1/events';
export * as pms from './gen/vrp/pms/v1/pms';
export * as pmsSync from './gen/vrp/pms/v1/sync';
export * as syncHealth from './gen/vrp/pms/v1/sync_health';
export * as webhook from './gen/vrp/webhook/v1/webhook';
export * as ops from './gen/vrp/ops/v1/dead_letter';
export * as health from './gen/grpc/health/v1/health';
export * as rpcStatus from './gen/google/rpc/status';
export * as protobufAny from './gen/google/protobuf/any';
export * from './topics';
export * from './pms-sync';
