// Pure tests of the renderers: each renders what its schema describes.
import { listing as pb, reservation, webhook } from '@vrp/contracts';
import {
  listingSchema,
  photoSchema,
  reservationSchema,
  toApiCapabilities,
  toApiDelivery,
  toApiListing,
  toApiPhoto,
  toApiReservation,
  toListingRow,
  webhookDeliverySchema,
} from '../src';

describe('renderers', () => {
  it('renders absent capabilities as no support, with null providers', () => {
    expect(toApiCapabilities(undefined)).toEqual({
      reservations: { provider: null, create: false, modify: false, cancel: false, quote: false, customPrice: false, notes: false },
      pms: {
        provider: null,
        reviewReplies: false,
        requestAnswers: false,
        preApprovals: false,
        contentSections: [],
        guests: false,
        messageChannel: false,
        messageAttachments: false,
        calendar: false,
      },
    });
  });

  it('renders what its schema describes (the Api* types are the schemas’)', () => {
    const l = pb.Listing.create({
      id: 'lst_1',
      name: 'Sea View',
      status: 'active',
      channels: [{ channel: 'CHANNEL_A', externalId: 'c1' }],
      createdAt: new Date(0),
    });
    expect(listingSchema.safeParse(toApiListing(l)).success).toBe(true);
    expect(toListingRow({ ...l, status: 'inactive' })).toEqual({
      id: 'lst_1',
      name: 'Sea View',
      status: 'inactive',
      channels: [{ channel: 'CHANNEL_A', externalId: 'c1' }],
    });
    expect(photoSchema.safeParse(toApiPhoto(pb.Photo.create({ id: 'ph_1', url: 'https://x.test/a.jpg', caption: '', position: 0 }))).success).toBe(true);
    const r = reservation.Reservation.create({ id: 'res_1', status: 'CONFIRMED', source: 'DIRECT', bookedAt: new Date(0), updatedAt: new Date(0) });
    expect(reservationSchema.safeParse(toApiReservation(r)).success).toBe(true);
    const d = toApiDelivery(webhook.Delivery.create({ id: 'dlv_1', status: 'bogus', droppedReason: 'nope', createdAt: new Date(0) }));
    expect(d).toMatchObject({ status: 'pending', droppedReason: null });
    expect(webhookDeliverySchema.safeParse(d).success).toBe(true);
  });
});
