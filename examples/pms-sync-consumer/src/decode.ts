// Decoding pms.sync.v1 the way any outside consumer can: from the published .proto files
// (proto/vrp/pms/v1/sync.proto), loaded at run time by protobufjs. Nothing here comes from this
// repository's TypeScript packages.
import path from 'node:path';
import protobuf from 'protobufjs';

/** Where the published .proto files are (the repository's proto/ folder by default). */
export const DEFAULT_PROTO_ROOT = path.resolve(__dirname, '../../../proto');

/** The entity a change carries: the name of the `entity_change` oneof member that is set. */
export type SyncEntity = 'listing' | 'reservation' | 'guest' | 'message' | 'review' | 'request' | 'inquiry';

export interface DecodedChange {
  changeId: string;
  workspaceId: string;
  connectionId: string;
  provider: string;
  entity: SyncEntity;
  externalId: string;
  listingExternalId: string;
  occurredAt: Date | null;
  /** The entity's message as a plain object (field names in lowerCamelCase, times as Date). */
  payload: Record<string, unknown>;
}

/** Loads PmsSyncChange from the .proto files; `google/protobuf/timestamp.proto` is built into protobufjs. */
export async function loadPmsSyncChange(protoRoot = DEFAULT_PROTO_ROOT): Promise<protobuf.Type> {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(protoRoot, target));
  await root.load('vrp/pms/v1/sync.proto', { keepCase: false });
  return root.lookupType('vrp.pms.v1.PmsSyncChange');
}

/** google.protobuf.Timestamp objects (`{seconds, nanos}`) anywhere in `value`, as Dates. */
function withDates(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withDates);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length > 0 && keys.every((k) => k === 'seconds' || k === 'nanos')) {
    return new Date(Number(o.seconds ?? 0) * 1000 + Math.floor(Number(o.nanos ?? 0) / 1e6));
  }
  return Object.fromEntries(keys.map((k) => [k, withDates(o[k])]));
}

/** Decodes one record value of pms.sync.v1. Throws on bytes that are not a PmsSyncChange. */
export function decodeChange(type: protobuf.Type, value: Uint8Array): DecodedChange {
  const message = type.decode(value);
  // oneofs: true adds `entityChange`, the name of the member that is set.
  const o = type.toObject(message, { longs: Number, defaults: true, oneofs: true }) as Record<string, unknown>;
  const entity = o.entityChange as SyncEntity | undefined;
  if (!entity) throw new Error(`change ${String(o.changeId)} carries no entity`);
  return {
    changeId: String(o.changeId),
    workspaceId: String(o.workspaceId),
    connectionId: String(o.connectionId),
    provider: String(o.provider),
    entity,
    externalId: String(o.externalId),
    listingExternalId: String(o.listingExternalId),
    occurredAt: (withDates(o.occurredAt) as Date | undefined) ?? null,
    payload: withDates(o[entity]) as Record<string, unknown>,
  };
}
