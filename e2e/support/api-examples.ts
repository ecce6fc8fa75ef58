// The examples of the API reference, recorded from a running stack: one scenario calls every
// operation of the OpenAPI document over HTTP (its success, and its typical errors) and keeps
// each request and answer as sent and received. `pnpm examples` writes them to
// services/gateway/src/http/openapi-examples.json, from which the gateway's OpenAPI document
// takes its request and response examples and code samples; e2e/api-examples.test.ts records
// them again and fails when an answer no longer has the shape of the committed one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newWorld, requestArrives, reviewArrives, guestWrites } from './guest-world';
import { eventually, startTestStack, type TestStack } from './stack';
import { startWebhookReceiver } from './webhook-receiver';
import { connectPms, newWorkspace, simulatorOf } from './workspaces';

export type Auth = 'api_key' | 'admin' | 'none';

export interface RecordedExchange {
  /** What the example shows, e.g. "A reservation on free nights" or the error code. */
  summary: string;
  request: { method: string; path: string; query?: Record<string, string>; auth: Auth; headers?: Record<string, string>; body?: unknown };
  status: number;
  response: unknown;
}

/** Per operationId, its exchanges: the success first. */
export type RecordedExamples = Record<string, RecordedExchange[]>;

export const EXAMPLES_FILE = join(__dirname, '../../services/gateway/src/http/openapi-examples.json');
/** The base URL links are shown with (the stack's own is a random port). */
export const EXAMPLE_BASE_URL = 'http://localhost:8080';

/** Replaces the stack's base URL in every string (docs_url, webhook URLs) with EXAMPLE_BASE_URL. */
function rebase(value: unknown, from: string): unknown {
  if (typeof value === 'string') return value.split(from).join(EXAMPLE_BASE_URL);
  if (Array.isArray(value)) return value.map((v) => rebase(v, from));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebase(v, from)]));
  return value;
}

const NIGHT_MS = 86_400_000;
const day = (offsetDays: number): string => new Date(Date.UTC(2032, 0, 1) + offsetDays * NIGHT_MS).toISOString().slice(0, 10);

export interface RecordOptions {
  /** Where to send the scenario's requests (e.g. a validating proxy in front of the stack); default the stack. */
  baseUrl?: string;
  /** Where to send its admin API requests (the gateway's private listener, or a proxy in front of it). */
  adminBaseUrl?: string;
  /** Sees every exchange with the answer's headers. */
  observe?: (operationId: string, exchange: RecordedExchange, headers: Headers) => void;
}

export async function recordExamples(t: TestStack, opts: RecordOptions = {}): Promise<RecordedExamples> {
  const out: RecordedExamples = {};
  const receiver = await startWebhookReceiver();

  async function call<T = { data: Record<string, unknown> }>(
    operationId: string,
    summary: string,
    expected: number,
    req: { method: string; path: string; query?: Record<string, string>; auth?: Auth; key?: string; headers?: Record<string, string>; body?: unknown },
  ): Promise<T> {
    const auth = req.auth ?? 'api_key';
    const qs = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
    const headers = {
      ...(auth === 'api_key' ? { authorization: `Bearer ${req.key ?? t.apiKey}` } : auth === 'admin' ? { authorization: `Bearer ${t.adminToken}` } : {}),
      ...req.headers,
    };
    // The admin API is served on the gateway's private listener, the rest on the public one.
    const base = req.path.startsWith('/admin/') ? (opts.adminBaseUrl ?? t.adminBaseUrl) : (opts.baseUrl ?? t.baseUrl);
    const res = await fetch(`${base}${req.path}${qs}`, {
      method: req.method,
      headers: { ...headers, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
    });
    const body = (await res.json()) as T;
    if (res.status !== expected) throw new Error(`${operationId} (${summary}): ${res.status}, expected ${expected}: ${JSON.stringify(body)}`);
    const exchange: RecordedExchange = {
      summary,
      request: {
        method: req.method,
        path: req.path,
        ...(req.query ? { query: req.query } : {}),
        auth,
        ...(req.headers ? { headers: req.headers } : {}),
        ...(req.body === undefined ? {} : { body: req.body }),
      },
      status: res.status,
      response: operationId === 'getOpenApiDocument' && res.status === 200 ? abridgedDocument(body) : body,
    };
    opts.observe?.(operationId, exchange, res.headers);
    (out[operationId] ??= []).push(rebase(exchange, t.publicBaseUrl) as RecordedExchange);
    return body;
  }
  const notThere = (prefix: string) => `${prefix}_0000000000000000000000`;

  try {
    const [seaView, oldTown, cabin] = t.demoListingIds as [string, string, string];

    // ---- listings ----
    await call('listListings', 'Active listings, two per page', 200, { method: 'GET', path: '/v1/listings', query: { limit: '2' } });
    await call('listListings', 'validation_failed', 400, { method: 'GET', path: '/v1/listings', query: { limit: '500' } });
    await call('listListings', 'authentication_required', 401, { method: 'GET', path: '/v1/listings', auth: 'none' });
    await call('listProperties', 'Every listing, active or not', 200, { method: 'GET', path: '/v1/properties', query: { status: 'all', limit: '2' } });
    await call('listProperties', 'validation_failed', 400, { method: 'GET', path: '/v1/properties', query: { status: 'archived' } });
    await call('getListing', 'A listing with what its PMS supports', 200, { method: 'GET', path: `/v1/listings/${seaView}` });
    await call('getListing', 'listing_inactive', 403, { method: 'GET', path: `/v1/listings/${cabin}` });
    await call('getListing', 'not_found', 404, { method: 'GET', path: `/v1/listings/${notThere('lst')}` });
    await call('getProperty', 'A listing under its other name', 200, { method: 'GET', path: `/v1/properties/${oldTown}` });
    await call('getProperty', 'not_found', 404, { method: 'GET', path: `/v1/properties/${notThere('lst')}` });
    await call('getListingCalendar', 'Three nights of a calendar', 200, {
      method: 'GET',
      path: `/v1/listings/${seaView}/calendar`,
      query: { from: day(10), to: day(12) },
    });
    await call('getListingCalendar', 'listing_inactive', 403, { method: 'GET', path: `/v1/listings/${cabin}/calendar`, query: { from: day(10), to: day(12) } });
    await call('getListingCalendar', 'validation_failed', 400, { method: 'GET', path: `/v1/listings/${seaView}/calendar`, query: { from: day(12) } });
    await call('updateAvailability', 'A price for three nights', 200, {
      method: 'PATCH',
      path: '/v1/availability/batch',
      body: { updates: [{ listingId: seaView, from: day(20), to: day(22), price: 180 }] },
    });
    await call('updateAvailability', 'listing_inactive', 403, {
      method: 'PATCH',
      path: '/v1/availability/batch',
      body: { updates: [{ listingId: cabin, from: day(20), to: day(22), price: 180 }] },
    });
    await call('updateAvailability', 'validation_failed', 400, { method: 'PATCH', path: '/v1/availability/batch', body: { updates: [] } });
    await call('getListingContent', "A listing's content", 200, { method: 'GET', path: `/v1/listings/${seaView}/content` });
    await call('getListingContent', 'listing_inactive', 403, { method: 'GET', path: `/v1/listings/${cabin}/content` });
    await call('putListingContent', 'A description and room counts', 200, {
      method: 'PUT',
      path: `/v1/listings/${oldTown}/content`,
      body: { sections: { description: 'A bright loft above the old town square.', rooms: { bedrooms: 1, bathrooms: 1, beds: 2 } } },
    });
    await call('putListingContent', 'validation_failed', 400, { method: 'PUT', path: `/v1/listings/${oldTown}/content`, body: { sections: {} } });
    // A listing managed in PMS-G, whose API stores neither room counts nor translations.
    const fjord = await newWorld(t, [{ name: 'Fjord House', provider: 'PMS-G' }]);
    await call('putListingContent', 'pms_write_unsupported', 422, {
      method: 'PUT',
      path: `/v1/listings/${fjord.listings['Fjord House']!}/content`,
      body: { sections: { rooms: { bedrooms: 2, bathrooms: 1, beds: 3 } } },
      key: fjord.key,
    });
    await call('listListingPhotos', 'No photo yet', 200, { method: 'GET', path: `/v1/listings/${oldTown}/photos` });
    await call('listListingPhotos', 'listing_inactive', 403, { method: 'GET', path: `/v1/listings/${cabin}/photos` });
    const photo = await call('addListingPhoto', 'A photo by URL', 201, {
      method: 'POST',
      path: `/v1/listings/${oldTown}/photos`,
      body: { url: 'https://images.example.com/loft/living-room.jpg', caption: 'Living room' },
    });
    await call('addListingPhoto', 'validation_failed', 400, {
      method: 'POST',
      path: `/v1/listings/${oldTown}/photos`,
      body: { url: 'http://insecure.example.com/a.jpg' },
    });
    await call('listListingPhotos', 'The photos of a listing', 200, { method: 'GET', path: `/v1/listings/${oldTown}/photos` });
    await call('removeListingPhoto', 'Removes a photo', 200, { method: 'DELETE', path: `/v1/listings/${oldTown}/photos/${String(photo.data.id)}` });
    await call('removeListingPhoto', 'not_found', 404, { method: 'DELETE', path: `/v1/listings/${oldTown}/photos/${notThere('pho')}` });
    await call('publishListing', 'Publishes the content', 200, { method: 'POST', path: `/v1/listings/${oldTown}/publish` });
    await call('publishListing', 'listing_inactive', 403, { method: 'POST', path: `/v1/listings/${cabin}/publish` });

    // ---- reservations ----
    const stay = { propertyId: seaView, checkIn: day(40), checkOut: day(43) };
    await call('quoteReservation', 'A quote for three nights', 200, {
      method: 'POST',
      path: '/v1/reservations/quote',
      body: { ...stay, occupancy: { adults: 2 } },
    });
    await call('quoteReservation', 'listing_inactive', 403, { method: 'POST', path: '/v1/reservations/quote', body: { ...stay, propertyId: cabin } });
    const reservation = await call('createReservation', 'A reservation on free nights', 201, {
      method: 'POST',
      path: '/v1/reservations',
      headers: { 'Idempotency-Key': 'a1b2c3d4-booking-ada' },
      body: { ...stay, primaryGuest: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }, occupancy: { adults: 2 } },
    });
    await call('createReservation', 'Dry run: the reservation as it would be written; nothing is written', 200, {
      method: 'POST',
      path: '/v1/reservations',
      query: { dry_run: 'true' },
      body: { propertyId: seaView, checkIn: day(60), checkOut: day(62), primaryGuest: { firstName: 'Grace', lastName: 'Hopper' } },
    });
    await call('createReservation', 'dates_unavailable', 409, {
      method: 'POST',
      path: '/v1/reservations',
      body: { ...stay, primaryGuest: { firstName: 'Bob' } },
    });
    await call('createReservation', 'validation_failed', 400, {
      method: 'POST',
      path: '/v1/reservations',
      body: { propertyId: seaView, checkIn: day(50), checkOut: day(49), primaryGuest: { firstName: '' } },
    });
    await call('createReservation', 'listing_inactive', 403, {
      method: 'POST',
      path: '/v1/reservations',
      body: { ...stay, propertyId: cabin, primaryGuest: { firstName: 'Cy' } },
    });
    const reservationId = String(reservation.data.id);
    await call('listReservations', 'Reservations of a listing', 200, { method: 'GET', path: '/v1/reservations', query: { property_id: seaView, limit: '2' } });
    await call('listReservations', 'validation_failed', 400, { method: 'GET', path: '/v1/reservations', query: { status: 'lost' } });
    await call('getReservation', 'A reservation', 200, { method: 'GET', path: `/v1/reservations/${reservationId}` });
    await call('getReservation', 'not_found', 404, { method: 'GET', path: `/v1/reservations/${notThere('res')}` });
    await call('updateReservation', 'New notes, if nobody changed it since version 1', 200, {
      method: 'PATCH',
      path: `/v1/reservations/${reservationId}`,
      headers: { 'If-Match': '"1"' },
      body: { notes: { host: 'Late arrival, around 22:00.' } },
    });
    await call('updateReservation', 'precondition_failed', 412, {
      method: 'PATCH',
      path: `/v1/reservations/${reservationId}`,
      headers: { 'If-Match': '"1"' },
      body: { notes: { host: 'Early arrival.' } },
    });
    await call('cancelReservation', 'Cancels a reservation', 200, { method: 'POST', path: `/v1/reservations/${reservationId}/cancel` });
    await call('cancelReservation', 'not_found', 404, { method: 'POST', path: `/v1/reservations/${notThere('res')}/cancel` });

    // ---- guests ----
    const guest = await call('createGuest', 'A guest profile', 201, {
      method: 'POST',
      path: '/v1/guests',
      body: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', language: 'en' },
    });
    await call('createGuest', 'validation_failed', 400, { method: 'POST', path: '/v1/guests', body: { firstName: 'Grace', email: 'not-an-email' } });
    await call('createGuest', 'pms_write_unsupported', 422, { method: 'POST', path: '/v1/guests', body: { firstName: 'Frida', provider: 'PMS-F' } });
    await call('listGuests', 'Guests by name', 200, { method: 'GET', path: '/v1/guests', query: { search: 'hopper', limit: '2' } });
    await call('listGuests', 'validation_failed', 400, { method: 'GET', path: '/v1/guests', query: { offset: '-1' } });
    await call('getGuest', 'A guest', 200, { method: 'GET', path: `/v1/guests/${String(guest.data.id)}` });
    await call('getGuest', 'not_found', 404, { method: 'GET', path: `/v1/guests/${notThere('gst')}` });
    await call('updateGuest', 'A new language, if unchanged since version 1', 200, {
      method: 'PATCH',
      path: `/v1/guests/${String(guest.data.id)}`,
      headers: { 'If-Match': '"1"' },
      body: { language: 'fr' },
    });
    await call('updateGuest', 'validation_failed', 400, { method: 'PATCH', path: `/v1/guests/${String(guest.data.id)}`, body: {} });

    // ---- conversations, requests, reviews: data arriving from a PMS ----
    const world = await newWorld(t, [{ name: 'Harbour Flat' }]);
    const key = world.key;
    const conversation = await guestWrites(t, world, 'Harbour Flat', 'Is there parking nearby?');
    await call('listConversations', 'Conversations of a listing', 200, {
      method: 'GET',
      path: '/v1/conversations',
      query: { property_id: world.listings['Harbour Flat']!, limit: '2' },
      key,
    });
    await call('listConversations', 'validation_failed', 400, { method: 'GET', path: '/v1/conversations', query: { limit: '0' }, key });
    await call('getConversation', 'A conversation', 200, { method: 'GET', path: `/v1/conversations/${conversation.id}`, key });
    await call('getConversation', 'not_found', 404, { method: 'GET', path: `/v1/conversations/${notThere('cnv')}`, key });
    await call('sendMessage', 'A reply to the guest', 201, {
      method: 'POST',
      path: `/v1/conversations/${conversation.id}/messages`,
      body: { body: 'Yes: free street parking on Quay Road.' },
      key,
    });
    await call('sendMessage', 'validation_failed', 400, { method: 'POST', path: `/v1/conversations/${conversation.id}/messages`, body: { body: '' }, key });
    await call('listMessages', 'The messages of a conversation', 200, { method: 'GET', path: `/v1/conversations/${conversation.id}/messages`, key });
    await call('listMessages', 'not_found', 404, { method: 'GET', path: `/v1/conversations/${notThere('cnv')}/messages`, key });
    const toAccept = await requestArrives(t, world, 'Harbour Flat', 'request', { arrival: day(60), departure: day(63), first_name: 'Ines' });
    const toDecline = await requestArrives(t, world, 'Harbour Flat', 'request', { arrival: day(70), departure: day(72), first_name: 'Jon' });
    const inquiry = await requestArrives(t, world, 'Harbour Flat', 'inquiry', { arrival: day(80), departure: day(82), first_name: 'Kim' });
    await call('listRequests', 'Open booking requests', 200, { method: 'GET', path: '/v1/requests', query: { kind: 'request', limit: '2' }, key });
    await call('listRequests', 'validation_failed', 400, { method: 'GET', path: '/v1/requests', query: { kind: 'offer' }, key });
    await call('getRequest', 'A booking request', 200, { method: 'GET', path: `/v1/requests/${toAccept.id}`, key });
    await call('getRequest', 'not_found', 404, { method: 'GET', path: `/v1/requests/${notThere('req')}`, key });
    await call('acceptRequest', 'Accepts a request (no body needed)', 200, { method: 'POST', path: `/v1/requests/${toAccept.id}/accept`, key });
    await call('acceptRequest', 'not_found', 404, { method: 'POST', path: `/v1/requests/${notThere('req')}/accept`, key });
    await call('declineRequest', 'Declines a request with a message', 200, {
      method: 'POST',
      path: `/v1/requests/${toDecline.id}/decline`,
      body: { message: 'Sorry, those nights are taken.' },
      key,
    });
    await call('declineRequest', 'not_found', 404, { method: 'POST', path: `/v1/requests/${notThere('req')}/decline`, key });
    await call('preApproveInquiry', 'Pre-approves an inquiry (no body needed)', 200, { method: 'POST', path: `/v1/requests/${inquiry.id}/pre-approve`, key });
    await call('preApproveInquiry', 'not_found', 404, { method: 'POST', path: `/v1/requests/${notThere('req')}/pre-approve`, key });
    const review = await reviewArrives(t, world, 'Harbour Flat', { stars: 5, text: 'Lovely view of the boats.', reviewer_name: 'Lea' });
    await call('listReviews', 'Reviews of a listing', 200, {
      method: 'GET',
      path: '/v1/reviews',
      query: { property_id: world.listings['Harbour Flat']!, limit: '2' },
      key,
    });
    await call('listReviews', 'validation_failed', 400, { method: 'GET', path: '/v1/reviews', query: { limit: 'ten' }, key });
    await call('getReview', 'A review', 200, { method: 'GET', path: `/v1/reviews/${review.id}`, key });
    await call('getReview', 'not_found', 404, { method: 'GET', path: `/v1/reviews/${notThere('rev')}`, key });
    await call('replyToReview', 'A public reply', 200, { method: 'POST', path: `/v1/reviews/${review.id}/reply`, body: { body: 'Thank you, Lea!' }, key });
    await call('replyToReview', 'validation_failed', 400, { method: 'POST', path: `/v1/reviews/${review.id}/reply`, body: {}, key });

    await call('getProviderCapabilities', 'What PMS-A supports', 200, { method: 'GET', path: '/v1/connect/PMS-A' });
    await call('getProviderCapabilities', 'not_found', 404, { method: 'GET', path: '/v1/connect/PMS-Z' });

    // ---- webhooks ----
    const sub = await call('createWebhook', 'A subscription to reservation events', 201, {
      method: 'POST',
      path: '/v1/webhooks',
      body: { url: receiver.url, eventTypes: ['reservation.created', 'reservation.cancelled'], description: 'Front desk' },
    });
    await call('createWebhook', 'validation_failed', 400, { method: 'POST', path: '/v1/webhooks', body: { url: 'ftp://hooks.example.com' } });
    const subId = String(sub.data.id);
    await call('listWebhooks', 'Subscriptions', 200, { method: 'GET', path: '/v1/webhooks', query: { limit: '2' } });
    await call('listWebhooks', 'validation_failed', 400, { method: 'GET', path: '/v1/webhooks', query: { limit: '1000' } });
    await call('getWebhook', 'A subscription', 200, { method: 'GET', path: `/v1/webhooks/${subId}` });
    await call('getWebhook', 'not_found', 404, { method: 'GET', path: `/v1/webhooks/${notThere('wh')}` });
    await call('updateWebhook', 'Adds an event type', 200, {
      method: 'PATCH',
      path: `/v1/webhooks/${subId}`,
      body: { eventTypes: ['reservation.created', 'reservation.updated', 'reservation.cancelled'] },
    });
    await call('updateWebhook', 'validation_failed', 400, { method: 'PATCH', path: `/v1/webhooks/${subId}`, body: { eventTypes: ['reservation.exploded'] } });
    await call('createReservation', 'A reservation of a guest with an email only', 201, {
      method: 'POST',
      path: '/v1/reservations',
      body: { propertyId: oldTown, checkIn: day(90), checkOut: day(92), primaryGuest: { firstName: 'Mae' } },
    });
    await eventually(() => receiver.received.some((r) => r.json.type === 'reservation.created'), 10_000, 'a delivery');
    let deliveryId = '';
    await eventually(
      async () => {
        const page = await t.api<{ data: { id: string; status: string }[] }>('GET', `/v1/webhooks/${subId}/deliveries`);
        deliveryId = page.body.data.find((d) => d.status === 'succeeded')?.id ?? '';
        return deliveryId !== '';
      },
      10_000,
      'a succeeded delivery',
    );
    // ---- events ----
    const newest = await call<{ data: { id: string }[] }>('listEvents', 'The newest reservation.created event', 200, {
      method: 'GET',
      path: '/v1/events',
      query: { type: 'reservation.created', limit: '1' },
    });
    await call('listEvents', 'listing_inactive', 403, { method: 'GET', path: '/v1/events', query: { listing_id: cabin } });
    await call('getEvent', 'An event, as its webhook deliveries carry it', 200, { method: 'GET', path: `/v1/events/${newest.data[0]!.id}` });
    await call('getEvent', 'not_found', 404, { method: 'GET', path: `/v1/events/${notThere('evt')}` });
    await call('listWebhookDeliveries', 'The delivery log', 200, { method: 'GET', path: `/v1/webhooks/${subId}/deliveries`, query: { limit: '2' } });
    await call('listWebhookDeliveries', 'not_found', 404, { method: 'GET', path: `/v1/webhooks/${notThere('wh')}/deliveries` });
    await call('replayWebhookDelivery', 'Sends a delivery again', 202, { method: 'POST', path: `/v1/webhooks/${subId}/deliveries/${deliveryId}/replay` });
    await call('replayWebhookDelivery', 'not_found', 404, { method: 'POST', path: `/v1/webhooks/${subId}/deliveries/${notThere('dlv')}/replay` });
    await call('rotateWebhookSecret', 'A new secret; the old one stays valid for an hour (no body needed)', 200, {
      method: 'POST',
      path: `/v1/webhooks/${subId}/rotate-secret`,
    });
    await call('rotateWebhookSecret', 'validation_failed', 400, {
      method: 'POST',
      path: `/v1/webhooks/${subId}/rotate-secret`,
      body: { gracePeriodSeconds: -5 },
    });
    await call('deleteWebhook', 'Deletes a subscription', 200, { method: 'DELETE', path: `/v1/webhooks/${subId}` });
    await call('deleteWebhook', 'not_found', 404, { method: 'DELETE', path: `/v1/webhooks/${subId}` });
    await call('listWebhookEventTypes', 'Every event type', 200, { method: 'GET', path: '/v1/webhook-event-types' });
    await call('listWebhookEventTypes', 'invalid_api_key', 401, {
      method: 'GET',
      path: '/v1/webhook-event-types',
      key: 'sk_test_revokedorwrong0000000000000000',
    });

    // ---- listing toggles (after the reads above: they change what is active) ----
    await call('setListingActive', 'Deactivates a listing', 200, { method: 'PATCH', path: `/v1/listings/${oldTown}`, body: { active: false } });
    await call('setListingActive', 'validation_failed', 400, { method: 'PATCH', path: `/v1/listings/${oldTown}`, body: { active: 'yes' } });
    await call('setListingsStatus', 'Activates two listings at once', 200, {
      method: 'POST',
      path: '/v1/listings/status',
      body: { listingIds: [oldTown, cabin], active: true },
    });
    await call('setListingsStatus', 'not_found', 404, { method: 'POST', path: '/v1/listings/status', body: { listingIds: [notThere('lst')], active: true } });

    // ---- admin API ----
    const ws = await call('adminCreateWorkspace', 'A workspace with its plan', 201, {
      method: 'POST',
      path: '/admin/v1/workspaces',
      auth: 'admin',
      body: { name: 'Acme Stays', activeListingLimit: 25 },
    });
    const wsId = String(ws.data.id);
    await call('adminCreateWorkspace', 'validation_failed', 400, { method: 'POST', path: '/admin/v1/workspaces', auth: 'admin', body: { name: '' } });
    await call('adminCreateWorkspace', 'admin_token_invalid', 401, {
      method: 'POST',
      path: '/admin/v1/workspaces',
      auth: 'none',
      headers: { authorization: 'Bearer wrong' },
    });
    await call('adminGetWorkspace', 'A workspace with its usage', 200, { method: 'GET', path: `/admin/v1/workspaces/${wsId}`, auth: 'admin' });
    await call('adminGetWorkspace', 'not_found', 404, { method: 'GET', path: `/admin/v1/workspaces/${notThere('ws')}`, auth: 'admin' });
    await call('adminUpdateWorkspace', 'A larger plan', 200, {
      method: 'PATCH',
      path: `/admin/v1/workspaces/${wsId}`,
      auth: 'admin',
      body: { activeListingLimit: 50, rateLimits: { keyRequestsPerSecond: 20 } },
    });
    await call('adminUpdateWorkspace', 'validation_failed', 400, {
      method: 'PATCH',
      path: `/admin/v1/workspaces/${wsId}`,
      auth: 'admin',
      body: { activeListingLimit: -1 },
    });
    await call('adminSetWorkspaceSettings', 'Every setting at its default', 200, {
      method: 'PUT',
      path: `/admin/v1/workspaces/${wsId}/settings`,
      auth: 'admin',
      body: {},
    });
    await call('adminSetWorkspaceSettings', 'validation_failed', 400, {
      method: 'PUT',
      path: `/admin/v1/workspaces/${wsId}/settings`,
      auth: 'admin',
      body: { noSuchSetting: true },
    });
    await call('adminGetWorkspaceSettings', 'The settings of a workspace', 200, {
      method: 'GET',
      path: `/admin/v1/workspaces/${wsId}/settings`,
      auth: 'admin',
    });
    await call('adminGetWorkspaceSettings', 'not_found', 404, { method: 'GET', path: `/admin/v1/workspaces/${notThere('ws')}/settings`, auth: 'admin' });
    const apiKey = await call('adminCreateApiKey', 'A test-mode key (shown once)', 201, {
      method: 'POST',
      path: `/admin/v1/workspaces/${wsId}/api-keys`,
      auth: 'admin',
      body: { mode: 'test', name: 'Channel manager' },
    });
    await call('adminCreateApiKey', 'validation_failed', 400, {
      method: 'POST',
      path: `/admin/v1/workspaces/${wsId}/api-keys`,
      auth: 'admin',
      body: { mode: 'prod' },
    });
    await call('adminListApiKeys', 'The keys of a workspace', 200, { method: 'GET', path: `/admin/v1/workspaces/${wsId}/api-keys`, auth: 'admin' });
    await call('adminListApiKeys', 'not_found', 404, { method: 'GET', path: `/admin/v1/workspaces/${notThere('ws')}/api-keys`, auth: 'admin' });
    await call('adminRevokeApiKey', 'Revokes a key', 200, { method: 'DELETE', path: `/admin/v1/api-keys/${String(apiKey.data.id)}`, auth: 'admin' });
    await call('adminRevokeApiKey', 'not_found', 404, { method: 'DELETE', path: `/admin/v1/api-keys/${notThere('key')}`, auth: 'admin' });
    await call('adminCreateListing', 'A listing no PMS manages', 201, {
      method: 'POST',
      path: `/admin/v1/workspaces/${wsId}/listings`,
      auth: 'admin',
      body: { mode: 'test', name: 'Garden Studio', currency: 'EUR', defaultNightlyPrice: 95 },
    });
    await call('adminCreateListing', 'validation_failed', 400, {
      method: 'POST',
      path: `/admin/v1/workspaces/${wsId}/listings`,
      auth: 'admin',
      body: { mode: 'test' },
    });
    const pms = simulatorOf(t);
    await pms.createAccount('PMS-B', `acct-${wsId}`);
    await pms.putListing('PMS-B', `acct-${wsId}`, 'pmsb-1', { name: 'Lake House', listed: true });
    const connection = await call('adminConnectPms', 'Connects a PMS-B account and imports its listings', 201, {
      method: 'POST',
      path: `/admin/v1/workspaces/${wsId}/connections`,
      auth: 'admin',
      body: { provider: 'PMS-B', accountId: `acct-${wsId}`, mode: 'test' },
    });
    await call('adminConnectPms', 'validation_failed', 400, {
      method: 'POST',
      path: `/admin/v1/workspaces/${wsId}/connections`,
      auth: 'admin',
      body: { provider: 'PMS-Z', accountId: 'x', mode: 'test' },
    });
    const connectionId = String(connection.data.id);
    await call('adminListPmsConnections', 'The connections of a workspace', 200, {
      method: 'GET',
      path: `/admin/v1/workspaces/${wsId}/connections`,
      auth: 'admin',
    });
    await call('adminListPmsConnections', 'not_found', 404, { method: 'GET', path: `/admin/v1/workspaces/${notThere('ws')}/connections`, auth: 'admin' });
    await call('adminSyncPms', 'Pulls the changes of the PMS now', 200, {
      method: 'POST',
      path: `/admin/v1/workspaces/${wsId}/connections/${connectionId}/sync`,
      auth: 'admin',
    });
    await call('adminSyncPms', 'not_found', 404, { method: 'POST', path: `/admin/v1/workspaces/${wsId}/connections/${notThere('con')}/sync`, auth: 'admin' });
    await call('adminGetPmsConnection', 'A connection and the health of its sync', 200, {
      method: 'GET',
      path: `/admin/v1/workspaces/${wsId}/connections/${connectionId}`,
      auth: 'admin',
    });
    await call('adminGetPmsConnection', 'not_found', 404, {
      method: 'GET',
      path: `/admin/v1/workspaces/${wsId}/connections/${notThere('con')}`,
      auth: 'admin',
    });

    // A dead letter: a PMS reservation on a listing the workspace deleted cannot be applied.
    const dl = await newWorkspace(t, 'Dead letters');
    await pms.createAccount('PMS-D', `acct-${dl.id}`);
    await pms.putListing('PMS-D', `acct-${dl.id}`, 'gone-1', { name: 'Gone Cabin' });
    const dlConnection = await connectPms(t, dl.id, 'PMS-D', `acct-${dl.id}`);
    let goneId = '';
    await eventually(
      async () => (goneId = (await dl.api<{ data: { id: string }[] }>('GET', '/v1/listings?status=all')).body.data[0]?.id ?? '') !== '',
      10_000,
      'the import',
    );
    await call('deleteListing', 'Deletes a listing', 200, { method: 'DELETE', path: `/v1/listings/${goneId}`, key: dl.key });
    await call('deleteListing', 'not_found', 404, { method: 'DELETE', path: `/v1/listings/${goneId}`, key: dl.key });
    await pms.putReservation('PMS-D', `acct-${dl.id}`, 'res-on-gone', {
      listing_id: 'gone-1',
      arrival: day(100),
      departure: day(103),
      guest: { first_name: 'Ada', last_name: 'Gone' },
      adults: 2,
    });
    expect200(await t.admin('POST', `/admin/v1/workspaces/${dl.id}/connections/${dlConnection}/sync`));
    let deadLetterId = '';
    await eventually(
      async () =>
        (deadLetterId = (await t.admin<{ data: { id: string }[] }>('GET', `/admin/v1/dead-letters?workspace_id=${dl.id}`)).body.data[0]?.id ?? '') !== '',
      10_000,
      'the dead letter',
    );
    await call('adminListDeadLetters', 'Dead letters of a workspace', 200, {
      method: 'GET',
      path: '/admin/v1/dead-letters',
      query: { workspace_id: dl.id },
      auth: 'admin',
    });
    await call('adminListDeadLetters', 'validation_failed', 400, { method: 'GET', path: '/admin/v1/dead-letters', query: { status: 'lost' }, auth: 'admin' });
    await call('adminReplayDeadLetter', 'conflict', 409, { method: 'POST', path: `/admin/v1/dead-letters/${deadLetterId}/replay`, auth: 'admin' });
    // The cause fixed: the listing comes back with the PMS's next change of it.
    await pms.putListing('PMS-D', `acct-${dl.id}`, 'gone-1', { name: 'Gone Cabin, back' });
    expect200(await t.admin('POST', `/admin/v1/workspaces/${dl.id}/connections/${dlConnection}/sync`));
    await eventually(async () => (await dl.api<{ data: unknown[] }>('GET', '/v1/listings?status=all')).body.data.length === 1, 10_000, 'the listing back');
    await call('adminReplayDeadLetter', 'Replays a dead letter once its cause is fixed', 200, {
      method: 'POST',
      path: `/admin/v1/dead-letters/${deadLetterId}/replay`,
      auth: 'admin',
    });
    await call('adminReplayDeadLetter', 'not_found', 404, { method: 'POST', path: `/admin/v1/dead-letters/${notThere('dl')}/replay`, auth: 'admin' });
    await call('adminDeleteDeadLetter', 'Deletes a dead letter', 200, { method: 'DELETE', path: `/admin/v1/dead-letters/${deadLetterId}`, auth: 'admin' });
    await call('adminDeleteDeadLetter', 'not_found', 404, { method: 'DELETE', path: `/admin/v1/dead-letters/${notThere('dl')}`, auth: 'admin' });
    await call('adminDisconnectPms', 'Disconnects a PMS account', 200, {
      method: 'DELETE',
      path: `/admin/v1/workspaces/${wsId}/connections/${connectionId}`,
      auth: 'admin',
    });
    await call('adminDisconnectPms', 'not_found', 404, {
      method: 'DELETE',
      path: `/admin/v1/workspaces/${wsId}/connections/${notThere('con')}`,
      auth: 'admin',
    });

    await call('getOpenApiDocument', 'This document (abridged here)', 200, { method: 'GET', path: '/v1/openapi.json', auth: 'none' });
    await call('getOpenApiDocument', 'validation_failed', 400, { method: 'GET', path: '/v1/openapi.json', query: { format: 'yaml' }, auth: 'none' });
  } finally {
    await receiver.close();
  }
  return out;
}

function expect200(res: { status: number; body: unknown }): void {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${JSON.stringify(res.body)}`);
}

/** The document's own example: its head, not its 900 KB. */
function abridgedDocument(doc: unknown): unknown {
  const d = doc as { openapi: string; info: { title: string; version: string }; paths: Record<string, unknown> };
  const [firstPath] = Object.keys(d.paths);
  return { openapi: d.openapi, info: { title: d.info.title, version: d.info.version }, paths: { [firstPath!]: {} } };
}

/** `pnpm examples`: records the examples from a fresh stack into EXAMPLES_FILE. */
async function main(): Promise<void> {
  const t = await startTestStack({ demoPms: true });
  try {
    const examples = await recordExamples(t);
    writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`);
    process.stdout.write(`recorded ${Object.keys(examples).length} operations into ${EXAMPLES_FILE}\n`);
  } finally {
    await t.stop();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
