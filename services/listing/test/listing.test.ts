// Component test: the listing service over real gRPC with embedded engines.
import { listing as pb, listingEvents, TOPICS } from '@vrp/contracts';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { useListingService } from './support';
import { errorOf } from '@vrp/testkit';

describe('listing service over gRPC', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();

  const sut = useListingService({ store, bus });

  const create = (workspaceId: string, name: string, extra: Partial<pb.CreateListingRequest> = {}) =>
    sut.client.call('createListing', {
      workspaceId,
      listing: pb.Listing.create({ name, channels: [{ channel: 'CHANNEL_A', externalId: `ch-${name}` }] }),
      inactive: false,
      ...extra,
    });

  it('lists only the workspace’s active listings by default, with pagination', async () => {
    await sut.client.call('setWorkspacePlan', { workspaceId: 'ws_a', activeListingLimit: 10 });
    await create('ws_a', 'Sea View');
    await create('ws_a', 'Old Town');
    await create('ws_a', 'Unlisted Loft', { inactive: true });
    await create('ws_b', 'Other Tenant');

    const active = await sut.client.call('listListings', { workspaceId: 'ws_a', status: 0, page: { limit: 1, offset: 0 } });
    expect(active.listings.map((l) => l.name)).toEqual(['Sea View']);
    expect(active.page).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });

    const all = await sut.client.call('listListings', {
      workspaceId: 'ws_a',
      status: pb.ListingStatusFilter.LISTING_STATUS_FILTER_ALL,
      page: { limit: 50, offset: 0 },
    });
    expect(all.listings.map((l) => l.name)).toEqual(['Sea View', 'Old Town', 'Unlisted Loft']);
    const inactive = await sut.client.call('listListings', {
      workspaceId: 'ws_a',
      status: pb.ListingStatusFilter.LISTING_STATUS_FILTER_INACTIVE,
      page: undefined,
    });
    expect(inactive.listings.map((l) => [l.name, l.status])).toEqual([['Unlisted Loft', 'inactive']]);
  });

  it('resolves a listing by id or channel id, and never across workspaces', async () => {
    const { listing } = await create('ws_c', 'Harbour House');
    const byId = await sut.client.call('getListing', { workspaceId: 'ws_c', id: listing!.id, allowInactive: false });
    const byChannel = await sut.client.call('getListing', { workspaceId: 'ws_c', id: 'ch-Harbour House', allowInactive: false });
    expect(byChannel.listing!.id).toBe(byId.listing!.id);
    const err = await errorOf(sut.client.call('getListing', { workspaceId: 'ws_other', id: listing!.id, allowInactive: false }));
    expect(err.code).toBe('not_found');
  });

  it('answers listing_inactive with the listing named, unless the caller allows inactive', async () => {
    const { listing } = await create('ws_d', 'Quiet Cabin', { inactive: true });
    const err = await errorOf(sut.client.call('getListing', { workspaceId: 'ws_d', id: listing!.id, allowInactive: false }));
    expect(err.code).toBe('listing_inactive');
    expect(err.details.listingIds).toEqual([listing!.id]);
    expect(err.details.listings).toEqual([{ id: listing!.id, name: 'Quiet Cabin' }]);
    const allowed = await sut.client.call('getListing', { workspaceId: 'ws_d', id: listing!.id, allowInactive: true });
    expect(allowed.listing!.status).toBe('inactive');
  });

  it('refuses to create an active listing past the plan limit and reports usage', async () => {
    await sut.client.call('setWorkspacePlan', { workspaceId: 'ws_e', activeListingLimit: 1 });
    await create('ws_e', 'First');
    const err = await errorOf(create('ws_e', 'Second'));
    expect(err.code).toBe('listings_limit_exceeded');
    await create('ws_e', 'Third', { inactive: true });
    const { usage } = await sut.client.call('getWorkspaceUsage', { workspaceId: 'ws_e' });
    expect(usage).toEqual({ workspaceId: 'ws_e', activeListingLimit: 1, activeListings: 1, inactiveListings: 1, billableListings: 1 });
  });

  it('publishes ListingActivityChanged keyed by listing id for every created listing', async () => {
    const seen: listingEvents.ListingActivityChanged[] = [];
    const sub = await bus.subscribe({
      groupId: 'test-activity',
      topics: [TOPICS.listingActivity.name],
      fromBeginning: true,
      handler: async (m) => {
        const e = listingEvents.ListingActivityChanged.decode(m.value);
        expect(m.key).toBe(e.listingId);
        seen.push(e);
      },
    });
    await sub.ready;
    const { listing } = await create('ws_f', 'Evented');
    await bus.whenIdle();
    const event = seen.find((e) => e.listingId === listing!.id);
    expect(event).toMatchObject({ workspaceId: 'ws_f', listingName: 'Evented', active: true, version: 1, channelIds: ['ch-Evented'] });
    await sub.stop();
  });

  it('publishes every change of state (owner deactivation, activation) on listing.activity.v1, keyed by listing id, with the next version', async () => {
    const seen: listingEvents.ListingActivityChanged[] = [];
    await sut.client.call('setWorkspacePlan', { workspaceId: 'ws_toggle', activeListingLimit: 5 });
    const { listing } = await create('ws_toggle', 'Toggled');
    const sub = await bus.subscribe({
      groupId: 'test-activity-toggles',
      topics: [TOPICS.listingActivity.name],
      fromBeginning: true,
      handler: async (m) => {
        const e = listingEvents.ListingActivityChanged.decode(m.value);
        // At-least-once: a repeated event (same id) counts once.
        if (m.key === e.listingId && e.listingId === listing!.id && !seen.some((x) => x.eventId === e.eventId)) seen.push(e);
      },
    });
    await sub.ready;
    await sut.client.call('setListingsActive', { workspaceId: 'ws_toggle', listingIds: [listing!.id], active: false, expectedVersion: 0, idempotencyKey: '' });
    await sut.client.call('setListingsActive', { workspaceId: 'ws_toggle', listingIds: [listing!.id], active: true, expectedVersion: 0, idempotencyKey: '' });
    await bus.whenIdle();
    const [created, off, on] = seen;
    expect(seen).toHaveLength(3);
    expect(off).toMatchObject({
      workspaceId: 'ws_toggle',
      active: false,
      reason: listingEvents.ActivityReason.ACTIVITY_REASON_OWNER,
      listingName: 'Toggled',
      version: created!.version + 1,
    });
    expect(on).toMatchObject({ active: true, version: off!.version + 1 });
    await sub.stop();
  });

  it('rejects a request without a workspace as validation_failed', async () => {
    const err = await errorOf(sut.client.call('listListings', { workspaceId: '', status: 0, page: undefined }));
    expect(err.code).toBe('validation_failed');
    expect(err.details.fields).toEqual({ workspaceId: 'is required' });
  });
});
