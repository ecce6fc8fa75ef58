// Payloads of pms.sync.v1 (PmsSyncChange.payload_json). The pms-adapter normalizes what each
// PMS returns into these shapes, so the consuming services never see a PMS's own format.
// `entity` on the message names which of these the payload is.

export interface ListingSyncPayload {
  externalId: string;
  name: string;
  /** Unlisted on its channel: a newly imported listing starts inactive (spec 3.2). */
  unlisted: boolean;
  channels: { channel: string; externalId: string }[];
  timezone?: string;
  currency?: string;
  maxGuests?: number;
  bedrooms?: number;
  bathrooms?: number;
  beds?: number;
  defaultNightlyPrice?: number;
  cleaningFee?: number;
}

export interface ReservationSyncPayload {
  externalId: string;
  listingExternalId: string;
  status: 'PENDING' | 'CONFIRMED' | 'CANCELLED';
  source: string;
  checkIn: string;
  checkOut: string;
  guest: { externalId?: string; firstName: string; lastName?: string; email?: string; phone?: string; language?: string };
  occupancy: { adults: number; children: number; infants: number; pets: number };
  totalPrice?: number;
  currency?: string;
  /** When the PMS last changed it (ISO 8601). */
  updatedAt: string;
}

export interface GuestSyncPayload {
  externalId: string;
  firstName: string;
  lastName?: string;
  email?: string;
  phone?: string;
  language?: string;
  updatedAt: string;
}

export type SyncEntity = 'listing' | 'reservation' | 'guest';

// ---- guest-side entities (consumed by the guest service) ----
// `listingId` is the API's listing id when the pms-adapter knows it (it imported the listing);
// otherwise the consumer resolves `PmsSyncChange.listing_external_id` through the listing service
// (listing ids and mapped channel ids). A change whose listing cannot be resolved is skipped.

/** entity 'message': one message of a PMS-side conversation. */
export interface MessageSyncPayload {
  externalId: string;
  listingId?: string;
  /** The API reservation id when the conversation belongs to a reservation. */
  reservationId?: string;
  /** The PMS's id of the conversation (thread). */
  conversationExternalId: string;
  /** 'inbound' (from the guest, the default) or 'outbound' (sent from the PMS). */
  direction?: 'inbound' | 'outbound';
  body: string;
  attachments?: { url: string; name?: string; contentType?: string }[];
  channel?: string;
  sentAt: string;
}

/** entity 'review': a guest's review; `reply` once the host has replied (in the PMS or here). */
export interface ReviewSyncPayload {
  externalId: string;
  listingId?: string;
  reservationId?: string;
  guestName?: string;
  /** 1..5. */
  rating: number;
  body: string;
  channel?: string;
  reply?: { body: string; repliedAt: string };
  submittedAt: string;
  updatedAt: string;
}

/** entity 'request' or 'inquiry': a booking request awaiting an answer, or a pre-booking inquiry. */
export interface RequestSyncPayload {
  externalId: string;
  listingId?: string;
  guest: { firstName: string; lastName?: string; email?: string; phone?: string; language?: string };
  checkIn: string;
  checkOut: string;
  guests?: number;
  message?: string;
  channel?: string;
  status?: 'pending' | 'accepted' | 'declined' | 'pre_approved' | 'expired';
  updatedAt: string;
}

export type GuestSideSyncEntity = 'guest' | 'message' | 'review' | 'request' | 'inquiry';
