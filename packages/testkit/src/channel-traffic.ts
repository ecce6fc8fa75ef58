// What channels bring to a PMS account, put into the PMS simulator through its control API: a
// guest message with an attachment (id M1), a review (V1), a booking request (Q1) and an
// inquiry (I1). The simulator is typed here by the calls used, so testkit does not depend on it
// (the simulator's own tests use this too) and nothing here knows the code that reads the PMS.

export interface ChannelTraffic {
  /** The PMS listing of the message, review and request. */
  listing: string;
  /** The PMS listing of the inquiry; default `listing`. */
  inquiryListing?: string;
  message: { reservation_id: string; text: string; attachment: { url: string; filename: string; mime_type: string } };
  review: { stars: number; text: string; reviewer_name: string };
  request: { arrival: string; departure: string; guest: { first_name: string } };
  inquiry: { arrival: string; departure: string };
}

/** The part of the simulator's control client (SimulatorControl) this uses. */
export interface ChannelControl {
  receiveMessage(
    provider: string,
    accountId: string,
    id: string,
    message: { listing_id: string; reservation_id: string; text: string; attachments: ChannelTraffic['message']['attachment'][] },
  ): Promise<unknown>;
  putReview(provider: string, accountId: string, id: string, review: { listing_id: string } & ChannelTraffic['review']): Promise<unknown>;
  putRequest(
    provider: string,
    accountId: string,
    id: string,
    request: { listing_id: string; kind: 'request' | 'inquiry'; arrival: string; departure: string; guest?: { first_name: string } },
  ): Promise<unknown>;
}

/** Puts the traffic into one account, in the order M1, V1, Q1, I1. */
export async function putChannelTraffic(control: ChannelControl, provider: string, accountId: string, traffic: ChannelTraffic): Promise<void> {
  const { listing, message, review, request, inquiry } = traffic;
  await control.receiveMessage(provider, accountId, 'M1', {
    listing_id: listing,
    reservation_id: message.reservation_id,
    text: message.text,
    attachments: [message.attachment],
  });
  await control.putReview(provider, accountId, 'V1', { listing_id: listing, ...review });
  await control.putRequest(provider, accountId, 'Q1', { listing_id: listing, kind: 'request', ...request });
  await control.putRequest(provider, accountId, 'I1', { listing_id: traffic.inquiryListing ?? listing, kind: 'inquiry', ...inquiry });
}
