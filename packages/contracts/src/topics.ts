// The Kafka topics of the system: name, partitions and retention policy. Documented for outside
// consumers in docs/events.md.
export const TOPICS = {
  /** ListingActivityChanged, key = listing id, compacted: the latest message is the state. */
  listingActivity: { name: 'listing.activity.v1', partitions: 6, compacted: true },
  /** ReservationEvent, key = listing id. */
  reservationEvents: { name: 'reservation.events.v1', partitions: 6, compacted: false },
  /** GuestEvent, key = guest id. */
  guestEvents: { name: 'guest.events.v1', partitions: 6, compacted: false },
  /** Conversation/message events of the guest service, key = listing id. */
  messageEvents: { name: 'message.events.v1', partitions: 6, compacted: false },
  /** Review events of the guest service, key = listing id. */
  reviewEvents: { name: 'review.events.v1', partitions: 6, compacted: false },
  /** Booking request / inquiry events of the guest service, key = listing id. */
  requestEvents: { name: 'request.events.v1', partitions: 6, compacted: false },
  /** PmsSyncChange, key = PMS listing external id. */
  pmsSync: { name: 'pms.sync.v1', partitions: 6, compacted: false },
  /** SyncChangeOutcome (what the owning service did with a pms.sync.v1 change), key = connection id. */
  pmsSyncOutcomes: { name: 'pms.sync.outcomes.v1', partitions: 6, compacted: false },
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS]['name'];
