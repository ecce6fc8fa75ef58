// The pms.sync.v1 payloads (@vrp/contracts, a package api-model builds on, so it cannot import
// the vocabulary) spell some of the API's literal sets as types. These declarations fail to
// compile the day one side changes without the other; nothing runs at run time.
import type { MessageSyncPayload, RequestSyncPayload, ReservationSyncPayload } from '@vrp/contracts';
import type { MessageDirection, RequestStatus, WritableReservationStatus } from './vocabulary';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export type WireMatchesVocabulary = [
  Same<ReservationSyncPayload['status'], WritableReservationStatus>,
  Same<NonNullable<MessageSyncPayload['direction']>, MessageDirection>,
  Same<NonNullable<RequestSyncPayload['status']>, RequestStatus>,
] extends [true, true, true]
  ? true
  : never;
export const wireMatchesVocabulary: WireMatchesVocabulary = true;
