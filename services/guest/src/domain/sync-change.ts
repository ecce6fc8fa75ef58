// What a pms.sync.v1 change must carry before this service can apply it. No I/O.
import { PermanentError } from '@vrp/platform/consumer';

/** Which PMS change a sync applier works on: its tenant, PMS, ids and PMS listing. */
export interface SyncChangeRef {
  workspaceId: string;
  provider: string;
  changeId: string;
  /** The synced entity ('guest', 'message', ...) and its id in the PMS. */
  entity: string;
  externalId: string;
  /** The PMS's id of the listing the entity belongs to ('' when it names none). */
  listingExternalId: string;
}

/** A sync change that can never be applied (retrying it would block its partition forever). */
export class MalformedChange extends PermanentError {
  constructor(message: string) {
    super('malformed_payload', message);
    this.name = 'MalformedChange';
  }
}

/** A time a sync change must carry (a protobuf Timestamp, decoded). */
export function date(value: Date | undefined, what: string): Date {
  if (!value || Number.isNaN(value.getTime())) throw new MalformedChange(`${what} is missing or not a time`);
  return value;
}
