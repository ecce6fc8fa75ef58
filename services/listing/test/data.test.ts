// Component test of the listing data endpoints (calendar, content, photos, publish) over real
// gRPC with the embedded engines; the pure rules they are built on are tested beside domain/.
import { listing as pb } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { AppliedRequests, requestKey } from '@vrp/platform/applied-requests';
import { createLogger } from '@vrp/platform/logging';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { Outbox } from '@vrp/platform/outbox';
import { useListingService } from './support';
import type { ListingRecord } from '../src/domain/listing';
import type { ContentRelay } from '../src/ports/pms-content-relay';
import { getContent, putContent } from '../src/use-cases/content';
import type { ListingDeps } from '../src/use-cases/deps';
import { DataStore } from '../src/store/data-store';
import { ListingStore } from '../src/store/listing-store';
import { PmsSyncMarks } from '../src/store/pms-sync-marks';
import { errorOf } from '@vrp/testkit';

const section = (name: string, value: unknown) => ({ name, valueJson: JSON.stringify(value) });

describe('listing data over gRPC', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  let seq = 0;
  const booked: { workspaceId: string; listingId: string; date: string; reservationId: string }[] = [];
  const sut = useListingService({
    store,
    bus,
    // The PMS accepts every section it can store; the relay itself is tested below and in e2e/pms.
    contentRelay: { apply: async () => undefined },
    // The reservation service's booked nights (its own component tests and e2e cover the real one).
    bookings: {
      list: async (workspaceId, listingId, from, to) =>
        booked.filter((b) => b.workspaceId === workspaceId && b.listingId === listingId && b.date >= from && b.date <= to),
    },
  });

  /** A fresh workspace per test keeps the plan limit and the data of tests apart. */
  const workspace = async () => {
    const workspaceId = `ws_data_${++seq}`;
    await sut.client.call('setWorkspacePlan', { workspaceId, activeListingLimit: 50 });
    return workspaceId;
  };

  const create = async (workspaceId: string, name: string, fields: Partial<pb.Listing> = {}, channels = true) => {
    const { listing } = await sut.client.call('createListing', {
      workspaceId,
      listing: pb.Listing.create({ name, channels: channels ? [{ channel: 'CHANNEL_A', externalId: `ch-${workspaceId}-${name}` }] : [], ...fields }),
      inactive: false,
    });
    return listing!;
  };

  const deactivate = (workspaceId: string, ...listingIds: string[]) =>
    sut.client.call('setListingsActive', { idempotencyKey: '', workspaceId, listingIds, active: false, expectedVersion: 0 });

  const calendar = (workspaceId: string, listingId: string, from: string, to: string, calendarOnly = false) =>
    sut.client.call('getCalendar', { workspaceId, listingId, from, to, calendarOnly });

  const update = (workspaceId: string, ...updates: Partial<pb.AvailabilityUpdate>[]) =>
    sut.client.call('updateAvailability', { idempotencyKey: '', workspaceId, updates: updates.map((u) => pb.AvailabilityUpdate.create(u)) });

  const put = (workspaceId: string, listingId: string, sections: pb.ContentSection[], expectedVersion = 0) =>
    sut.client.call('putContent', { workspaceId, listingId, sections, expectedVersion });

  describe('calendar', () => {
    it('reads every day of the range, with the listing defaults where nothing was written', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Defaults', { defaultNightlyPrice: 120, currency: 'USD' });
      const res = await calendar(ws, l.id, '2025-03-30', '2025-04-01');
      expect(res.listingId).toBe(l.id);
      expect(res.currency).toBe('USD');
      expect(res.days).toEqual([
        { date: '2025-03-30', available: true, price: 120, minNights: 1, reservationId: '' },
        { date: '2025-03-31', available: true, price: 120, minNights: 1, reservationId: '' },
        { date: '2025-04-01', available: true, price: 120, minNights: 1, reservationId: '' },
      ]);
      const year = await calendar(ws, l.id, '2024-01-01', '2024-12-31');
      expect(year.days).toHaveLength(366);
    });

    it('shows nights held by reservations as unavailable, naming the reservation; calendarOnly leaves them out', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Booked', { defaultNightlyPrice: 100 });
      booked.push({ workspaceId: ws, listingId: l.id, date: '2025-05-02', reservationId: 'res_held' });
      const res = await calendar(ws, l.id, '2025-05-01', '2025-05-03');
      expect(res.days.map((d) => [d.date, d.available, d.reservationId])).toEqual([
        ['2025-05-01', true, ''],
        ['2025-05-02', false, 'res_held'],
        ['2025-05-03', true, ''],
      ]);
      const own = await calendar(ws, l.id, '2025-05-01', '2025-05-03', true);
      expect(own.days.every((d) => d.available && d.reservationId === '')).toBe(true);
    });

    it('writes only the given fields and keeps the others (defaults for new days)', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Updates', { defaultNightlyPrice: 90 });
      const first = await update(ws, { listingId: l.id, from: '2025-06-01', to: '2025-06-03', price: 150 });
      expect(first).toEqual({ listingIds: [l.id], daysUpdated: 3 });
      const second = await update(
        ws,
        { listingId: l.id, from: '2025-06-03', to: '2025-06-04', available: false },
        { listingId: l.id, from: '2025-06-04', to: '2025-06-04', minNights: 3 },
      );
      // 06-04 is named twice but is one day written.
      expect(second).toEqual({ listingIds: [l.id], daysUpdated: 2 });
      const res = await calendar(ws, l.id, '2025-05-31', '2025-06-05');
      expect(res.days).toEqual([
        { date: '2025-05-31', available: true, price: 90, minNights: 1, reservationId: '' },
        { date: '2025-06-01', available: true, price: 150, minNights: 1, reservationId: '' },
        { date: '2025-06-02', available: true, price: 150, minNights: 1, reservationId: '' },
        { date: '2025-06-03', available: false, price: 150, minNights: 1, reservationId: '' },
        { date: '2025-06-04', available: false, price: 90, minNights: 3, reservationId: '' },
        { date: '2025-06-05', available: true, price: 90, minNights: 1, reservationId: '' },
      ]);
      // A price of 0 is a value (a free night), not "unset".
      await update(ws, { listingId: l.id, from: '2025-06-05', to: '2025-06-05', price: 0 });
      expect((await calendar(ws, l.id, '2025-06-05', '2025-06-05')).days[0]!.price).toBe(0);
    });

    it('prices the nights of a stay from the calendar (for quotes)', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Rates', { defaultNightlyPrice: 100 });
      await update(ws, { listingId: l.id, from: '2025-07-02', to: '2025-07-02', price: 180, available: false });
      const rates = await new DataStore(store).nightlyRates(ws, { id: l.id, defaultNightlyPrice: 100 }, '2025-07-01', '2025-07-04');
      expect(rates).toEqual([
        { date: '2025-07-01', price: 100, available: true, minNights: 1 },
        { date: '2025-07-02', price: 180, available: false, minNights: 1 },
        { date: '2025-07-03', price: 100, available: true, minNights: 1 },
      ]);
      expect(await new DataStore(store).nightlyRates(ws, { id: l.id, defaultNightlyPrice: 100 }, '2025-07-04', '2025-07-04')).toEqual([]);
    });

    it('refuses fake dates, reversed ranges and ranges over 366 days, naming the field', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Dates');
      const cases: [string, string, string][] = [
        ['2025-02-30', '2025-03-02', 'from'],
        ['2025-03-01', '2025-02-29', 'to'],
        ['2025-03-05', '2025-03-01', 'to'],
        ['2025-01-01', '2026-01-02', 'to'],
        ['', '2025-01-01', 'from'],
        ['01/02/2025', '2025-01-03', 'from'],
      ];
      for (const [from, to, field] of cases) {
        const err = await errorOf(calendar(ws, l.id, from, to));
        expect(err.code).toBe('validation_failed');
        expect(Object.keys(err.details.fields ?? {})).toEqual([field]);
      }
    });

    it('validates every update before touching anything', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Validation');
      const fieldsOf = async (...updates: Partial<pb.AvailabilityUpdate>[]) => {
        const err = await errorOf(update(ws, ...updates));
        expect(err.code).toBe('validation_failed');
        return err.details.fields;
      };
      expect(await fieldsOf()).toEqual({ updates: 'must contain at least one update' });
      const many = Array.from({ length: 101 }, () => ({ listingId: l.id, from: '2025-01-01', to: '2025-01-01', price: 1 }));
      expect(Object.keys((await fieldsOf(...many)) ?? {})).toEqual(['updates']);
      expect(Object.keys((await fieldsOf({ listingId: l.id, from: '2025-01-01', to: '2025-01-02' })) ?? {})).toEqual(['updates[0]']);
      expect(
        Object.keys(
          (await fieldsOf(
            { listingId: l.id, from: '2025-01-01', to: '2025-01-02', price: 10 },
            { listingId: '', from: '2025-02-30', to: '2025-03-01', price: -1, minNights: 0 },
            // (A fractional minNights cannot even be encoded as int32; the pure rule covers it.)
            { listingId: l.id, from: '2025-01-01', to: '2026-01-05', minNights: 366 },
          )) ?? {},
        ).sort(),
      ).toEqual(['updates[1].from', 'updates[1].listingId', 'updates[1].minNights', 'updates[1].price', 'updates[2].minNights', 'updates[2].to']);
      expect((await calendar(ws, l.id, '2025-01-01', '2025-01-02')).days.every((d) => d.price === 100)).toBe(true);
    });

    it('names every inactive listing of a batch and writes nothing, not even to the active one', async () => {
      const ws = await workspace();
      const active = await create(ws, 'Active One', { defaultNightlyPrice: 100 });
      const off1 = await create(ws, 'Off One');
      const off2 = await create(ws, 'Off Two');
      await deactivate(ws, off1.id, off2.id);
      const err = await errorOf(
        update(
          ws,
          { listingId: active.id, from: '2025-08-01', to: '2025-08-10', price: 999, available: false },
          { listingId: off1.id, from: '2025-08-01', to: '2025-08-02', price: 1 },
          // The second inactive listing addressed by its channel id.
          { listingId: off2.channels[0]!.externalId, from: '2025-08-01', to: '2025-08-02', available: false },
        ),
      );
      expect(err.code).toBe('listing_inactive');
      expect(err.details.listingIds).toEqual([off1.id, off2.id]);
      expect(err.details.listings).toEqual([
        { id: off1.id, name: 'Off One' },
        { id: off2.id, name: 'Off Two' },
      ]);
      const after = await calendar(ws, active.id, '2025-08-01', '2025-08-10');
      expect(after.days.every((d) => d.price === 100 && d.available)).toBe(true);
      // Not transient (docs/api.md, "Listings are active or inactive"): the same request fails the same way.
      const again = await errorOf(update(ws, { listingId: off1.id, from: '2025-08-01', to: '2025-08-02', price: 1 }));
      expect(again.details.listingIds).toEqual([off1.id]);
    });

    it('answers not_found for an unknown id before any listing_inactive, and writes nothing', async () => {
      const ws = await workspace();
      const active = await create(ws, 'Known', { defaultNightlyPrice: 100 });
      const off = await create(ws, 'Known Off');
      await deactivate(ws, off.id);
      const err = await errorOf(
        update(
          ws,
          { listingId: active.id, from: '2025-09-01', to: '2025-09-02', price: 5 },
          { listingId: off.id, from: '2025-09-01', to: '2025-09-02', price: 5 },
          { listingId: 'lst_does_not_exist', from: '2025-09-01', to: '2025-09-02', price: 5 },
        ),
      );
      expect(err.code).toBe('not_found');
      expect(err.message).toContain('lst_does_not_exist');
      expect((await calendar(ws, active.id, '2025-09-01', '2025-09-02')).days.map((d) => d.price)).toEqual([100, 100]);
    });

    it('addresses listings by mapped channel id and answers with canonical ids', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Channel Addressed');
      const channelId = l.channels[0]!.externalId;
      const res = await update(
        ws,
        { listingId: channelId, from: '2025-10-01', to: '2025-10-01', price: 77 },
        { listingId: l.id, from: '2025-10-02', to: '2025-10-02', price: 78 },
      );
      expect(res).toEqual({ listingIds: [l.id], daysUpdated: 2 });
      const read = await calendar(ws, channelId, '2025-10-01', '2025-10-02');
      expect(read.listingId).toBe(l.id);
      expect(read.days.map((d) => d.price)).toEqual([77, 78]);
    });

    it("resolves a stay's listing, active or not, by id or channel id, with its calendar's own days in one call", async () => {
      const ws = await workspace();
      const l = await create(ws, 'Stay', { defaultNightlyPrice: 110, currency: 'EUR' });
      await update(ws, { listingId: l.id, from: '2025-11-02', to: '2025-11-02', price: 140, available: false });
      booked.push({ workspaceId: ws, listingId: l.id, date: '2025-11-01', reservationId: 'res_stay' });
      const stay = (id: string) => sut.client.call('resolveStay', { workspaceId: ws, id, from: '2025-11-01', to: '2025-11-02' });
      const byChannel = await stay(l.channels[0]!.externalId);
      expect(byChannel.listing!.id).toBe(l.id);
      expect(byChannel.listing!.currency).toBe('EUR');
      // The calendar's own days: a night a reservation holds is not marked here (the caller owns those).
      expect(byChannel.days).toEqual([
        { date: '2025-11-01', available: true, price: 110, minNights: 1, reservationId: '' },
        { date: '2025-11-02', available: false, price: 140, minNights: 1, reservationId: '' },
      ]);
      // An inactive listing is answered as it is: the caller decides activity.
      await deactivate(ws, l.id);
      expect((await stay(l.id)).listing!.status).toBe('inactive');
      expect(await errorOf(stay('lst_nowhere'))).toMatchObject({ code: 'not_found' });
      expect(await errorOf(sut.client.call('resolveStay', { workspaceId: ws, id: l.id, from: '2025-11-03', to: '2025-11-01' }))).toMatchObject({
        code: 'validation_failed',
      });
    });
  });

  describe('content', () => {
    it('versions the content: every write +1; a stale expected version is precondition_failed and stores nothing', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Content Versions');
      expect((await sut.client.call('getContent', { workspaceId: ws, listingId: l.id })).version).toBe(0);
      expect((await put(ws, l.id, [section('description', 'One')])).version).toBe(1);
      expect((await put(ws, l.id, [section('house_rules', 'No parties')], 1)).version).toBe(2);
      const stale = await errorOf(put(ws, l.id, [section('description', 'Two')], 1));
      expect(stale.code).toBe('precondition_failed');
      const now = await sut.client.call('getContent', { workspaceId: ws, listingId: l.id });
      expect(now.version).toBe(2);
      expect(now.sections.find((x) => x.name === 'description')?.valueJson).toBe(JSON.stringify('One'));
    });

    it('refuses malformed content, naming the sections', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Content Validation');
      const empty = await errorOf(put(ws, l.id, []));
      expect(empty.details.fields).toEqual({ sections: 'must contain at least one section' });
      const err = await errorOf(
        put(ws, l.id, [
          section('garden', 'big'),
          { name: 'description', valueJson: '{oops' },
          section('rooms', { bedrooms: 2, bathrooms: 1.25, beds: 2 }),
          section('amenities', ['wifi']),
          section('amenities', ['wifi']),
        ]),
      );
      expect(err.code).toBe('validation_failed');
      expect(Object.keys(err.details.fields ?? {}).sort()).toEqual([
        'sections.amenities',
        'sections.description',
        'sections.garden',
        'sections.rooms.bathrooms',
      ]);
      expect((await sut.client.call('getContent', { workspaceId: ws, listingId: l.id })).sections).toEqual([]);
    });

    it('stores every section on a listing without a PMS, merging with what is stored', async () => {
      const ws = await workspace();
      const l = await create(ws, 'No PMS');
      const empty = await sut.client.call('getContent', { workspaceId: ws, listingId: l.id });
      expect(empty).toEqual({ listingId: l.id, sections: [], updatedAt: undefined, version: 0 });

      const all = [
        section('translations', { fr: { description: 'Bel appartement' }, 'pt-BR': { house_rules: 'Sem festas' } }),
        section('rooms', { bedrooms: 2, bathrooms: 1.5, beds: 3 }),
        section('house_rule_switches', {}),
        section('amenities', ['wifi', 'pool']),
        section('description', 'A bright flat by the sea'),
      ];
      const res = await put(ws, l.id, all);
      expect(res.applied).toEqual(['description', 'amenities', 'house_rule_switches', 'rooms', 'translations']);
      expect(res).toMatchObject({ listingId: l.id, deferred: [], pmsProvider: '', pmsErrors: [] });
      expect(res.sections.map((s) => s.name)).toEqual(['description', 'amenities', 'house_rule_switches', 'rooms', 'translations']);

      const second = await put(ws, l.id, [section('house_rules', 'No parties'), section('description', 'Renovated in 2025')]);
      expect(second.applied).toEqual(['description', 'house_rules']);
      const read = await sut.client.call('getContent', { workspaceId: ws, listingId: l.channels[0]!.externalId });
      expect(read.listingId).toBe(l.id);
      expect(read.updatedAt).toBeInstanceOf(Date);
      expect(Object.fromEntries(read.sections.map((s) => [s.name, JSON.parse(s.valueJson) as unknown]))).toEqual({
        description: 'Renovated in 2025',
        amenities: ['wifi', 'pool'],
        house_rules: 'No parties',
        house_rule_switches: {},
        rooms: { bedrooms: 2, bathrooms: 1.5, beds: 3 },
        translations: { fr: { description: 'Bel appartement' }, 'pt-BR': { house_rules: 'Sem festas' } },
      });
      expect(read.sections.map((s) => s.name)).toEqual(['description', 'amenities', 'house_rules', 'house_rule_switches', 'rooms', 'translations']);
      expect(second.sections).toEqual(read.sections);
    });

    it('on PMS-G stores what the PMS can store and defers the rest with per-section errors', async () => {
      const ws = await workspace();
      const l = await create(ws, 'On PMS-G', { pmsProvider: 'PMS-G' });
      const res = await put(ws, l.id, [section('rooms', { bedrooms: 1, bathrooms: 1, beds: 1 }), section('description', 'Cosy')]);
      expect(res.applied).toEqual(['description']);
      expect(res.deferred).toEqual(['rooms']);
      expect(res.pmsProvider).toBe('PMS-G');
      expect(res.pmsErrors).toEqual([{ section: 'rooms', message: expect.stringContaining('PMS-G cannot store bedroom, bathroom and bed counts') as unknown }]);
      expect(res.sections.map((s) => s.name)).toEqual(['description']);
      const read = await sut.client.call('getContent', { workspaceId: ws, listingId: l.id });
      expect(read.sections).toEqual([section('description', 'Cosy')]);
    });

    it('on PMS-G refuses rooms + translations alone with pms_write_unsupported and stores nothing', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Only Refused', { pmsProvider: 'PMS-G' });
      const err = await errorOf(
        put(ws, l.id, [section('rooms', { bedrooms: 1, bathrooms: 1, beds: 1 }), section('translations', { fr: { description: 'Salut' } })]),
      );
      expect(err.code).toBe('pms_write_unsupported');
      expect(err.details.provider).toBe('PMS-G');
      expect(err.message).toContain('PMS-G cannot store bedroom, bathroom and bed counts or store content in a non-default language');
      expect((await sut.client.call('getContent', { workspaceId: ws, listingId: l.id })).sections).toEqual([]);
    });

    it('on PMS-F refuses house-rule switches', async () => {
      const ws = await workspace();
      const l = await create(ws, 'On PMS-F', { pmsProvider: 'PMS-F' });
      const err = await errorOf(put(ws, l.id, [section('house_rule_switches', { petsAllowed: false })]));
      expect(err.code).toBe('pms_write_unsupported');
      expect(err.details.provider).toBe('PMS-F');
      const ok = await put(ws, l.id, [section('rooms', { bedrooms: 3, bathrooms: 2, beds: 4 })]);
      expect(ok).toMatchObject({ applied: ['rooms'], deferred: [], pmsProvider: 'PMS-F', pmsErrors: [] });
    });
  });

  describe('photos', () => {
    it('appends, lists in order and removes photos', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Photos');
      const a = (
        await sut.client.call('addPhoto', {
          idempotencyKey: '',
          workspaceId: ws,
          listingId: l.id,
          url: 'https://cdn.example.com/a.jpg',
          caption: 'Living room',
        })
      ).photo!;
      const b = (
        await sut.client.call('addPhoto', {
          idempotencyKey: '',
          workspaceId: ws,
          listingId: l.channels[0]!.externalId,
          url: 'https://cdn.example.com/b.jpg',
          caption: '',
        })
      ).photo!;
      expect(a.id).toMatch(/^pho_/);
      expect([a.position, b.position]).toEqual([1, 2]);
      expect(a.createdAt).toBeInstanceOf(Date);
      expect((await sut.client.call('listPhotos', { workspaceId: ws, listingId: l.id })).photos.map((p) => p.id)).toEqual([a.id, b.id]);

      expect(await sut.client.call('removePhoto', { workspaceId: ws, listingId: l.id, photoId: a.id })).toEqual({ photoId: a.id });
      const c = (
        await sut.client.call('addPhoto', { idempotencyKey: '', workspaceId: ws, listingId: l.id, url: 'https://cdn.example.com/c.jpg', caption: 'Kitchen' })
      ).photo!;
      expect(c.position).toBe(3);
      const listed = await sut.client.call('listPhotos', { workspaceId: ws, listingId: l.id });
      expect(listed.photos.map((p) => [p.id, p.url, p.caption])).toEqual([
        [b.id, 'https://cdn.example.com/b.jpg', ''],
        [c.id, 'https://cdn.example.com/c.jpg', 'Kitchen'],
      ]);
      const again = await errorOf(sut.client.call('removePhoto', { workspaceId: ws, listingId: l.id, photoId: a.id }));
      expect(again.code).toBe('not_found');
    });

    it('does not remove a photo through another listing', async () => {
      const ws = await workspace();
      const owner = await create(ws, 'Photo Owner');
      const other = await create(ws, 'Photo Other');
      const p = (
        await sut.client.call('addPhoto', { idempotencyKey: '', workspaceId: ws, listingId: owner.id, url: 'https://cdn.example.com/x.jpg', caption: '' })
      ).photo!;
      const err = await errorOf(sut.client.call('removePhoto', { workspaceId: ws, listingId: other.id, photoId: p.id }));
      expect(err.code).toBe('not_found');
      expect((await sut.client.call('listPhotos', { workspaceId: ws, listingId: owner.id })).photos).toHaveLength(1);
    });

    it('accepts only https URLs and bounded captions', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Photo Rules');
      for (const url of ['http://cdn.example.com/a.jpg', 'ftp://cdn.example.com/a.jpg', 'not a url', '', `https://cdn.example.com/${'a'.repeat(2048)}`]) {
        const err = await errorOf(sut.client.call('addPhoto', { idempotencyKey: '', workspaceId: ws, listingId: l.id, url, caption: '' }));
        expect(err.code).toBe('validation_failed');
        expect(Object.keys(err.details.fields ?? {})).toEqual(['url']);
      }
      const caption = await errorOf(
        sut.client.call('addPhoto', { idempotencyKey: '', workspaceId: ws, listingId: l.id, url: 'https://cdn.example.com/a.jpg', caption: 'c'.repeat(501) }),
      );
      expect(Object.keys(caption.details.fields ?? {})).toEqual(['caption']);
    });

    it('holds at most 100 photos per listing', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Photo Limit');
      for (let i = 0; i < 100; i++)
        await sut.client.call('addPhoto', { idempotencyKey: '', workspaceId: ws, listingId: l.id, url: `https://cdn.example.com/${i}.jpg`, caption: '' });
      const err = await errorOf(
        sut.client.call('addPhoto', { idempotencyKey: '', workspaceId: ws, listingId: l.id, url: 'https://cdn.example.com/101.jpg', caption: '' }),
      );
      expect(err.code).toBe('validation_failed');
      expect(Object.keys(err.details.fields ?? {})).toEqual(['photos']);
      const listed = (await sut.client.call('listPhotos', { workspaceId: ws, listingId: l.id })).photos;
      expect(listed).toHaveLength(100);
      expect(listed.map((p) => p.position)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });
  });

  describe('publish', () => {
    it('publishes to the mapped channels and records publishedAt', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Publish Me');
      const res = await sut.client.call('publishListing', { idempotencyKey: '', workspaceId: ws, listingId: l.id });
      expect(res.listingId).toBe(l.id);
      expect(res.channels).toEqual(['CHANNEL_A']);
      expect(res.publishedAt).toBeInstanceOf(Date);
      const { listing } = await sut.client.call('getListing', { workspaceId: ws, id: l.id, allowInactive: false });
      expect(listing!.publishedAt?.getTime()).toBe(res.publishedAt!.getTime());
    });

    it('refuses a listing without any channel mapping, naming channels', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Unmapped', {}, false);
      const err = await errorOf(sut.client.call('publishListing', { idempotencyKey: '', workspaceId: ws, listingId: l.id }));
      expect(err.code).toBe('validation_failed');
      expect(Object.keys(err.details.fields ?? {})).toEqual(['channels']);
      expect(err.fix).toMatch(/map the listing to a channel/i);
    });
  });

  describe('Idempotency-Key stored with every write (a retry the gateway could not answer writes nothing)', () => {
    it('a photo added again with its key answers the first photo; no second photo; another body is idempotency_conflict', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Idem Photos');
      const add = (caption: string) =>
        sut.client.call('addPhoto', { idempotencyKey: 'photo-key-1', workspaceId: ws, listingId: l.id, url: 'https://cdn.example.com/i.jpg', caption });
      const first = (await add('Porch')).photo!;
      const again = (await add('Porch')).photo!;
      expect(again).toEqual(first);
      expect((await sut.client.call('listPhotos', { workspaceId: ws, listingId: l.id })).photos.map((p) => p.id)).toEqual([first.id]);
      expect((await errorOf(add('Garden'))).code).toBe('idempotency_conflict');
      expect((await sut.client.call('listPhotos', { workspaceId: ws, listingId: l.id })).photos).toHaveLength(1);
    });

    it('an availability batch retried with its key answers the first outcome and does not overwrite a later change', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Idem Calendar');
      const batch = () =>
        sut.client.call('updateAvailability', {
          idempotencyKey: 'avail-key-1',
          workspaceId: ws,
          updates: [pb.AvailabilityUpdate.create({ listingId: l.id, from: '2031-03-01', to: '2031-03-03', price: 111 })],
        });
      const first = await batch();
      await update(ws, { listingId: l.id, from: '2031-03-01', to: '2031-03-03', price: 222 });
      expect(await batch()).toEqual(first);
      const days = (await calendar(ws, l.id, '2031-03-01', '2031-03-02')).days;
      expect(days.map((d) => d.price)).toEqual([222, 222]);
      const other = sut.client.call('updateAvailability', {
        idempotencyKey: 'avail-key-1',
        workspaceId: ws,
        updates: [pb.AvailabilityUpdate.create({ listingId: l.id, from: '2031-03-01', to: '2031-03-03', price: 333 })],
      });
      expect((await errorOf(other)).code).toBe('idempotency_conflict');
    });

    it('a publish retried with its key answers the first publication: publishedAt and version unchanged', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Idem Publish');
      const publish = () => sut.client.call('publishListing', { idempotencyKey: 'publish-key-1', workspaceId: ws, listingId: l.id });
      const first = await publish();
      const version = (await sut.client.call('getListing', { workspaceId: ws, id: l.id, allowInactive: false })).listing!.version;
      expect(await publish()).toEqual(first);
      const after = (await sut.client.call('getListing', { workspaceId: ws, id: l.id, allowInactive: false })).listing!;
      expect([after.version, after.publishedAt?.getTime()]).toEqual([version, first.publishedAt!.getTime()]);
      const other = await create(ws, 'Idem Publish Other');
      expect((await errorOf(sut.client.call('publishListing', { idempotencyKey: 'publish-key-1', workspaceId: ws, listingId: other.id }))).code).toBe(
        'idempotency_conflict',
      );
      expect((await sut.client.call('getListing', { workspaceId: ws, id: other.id, allowInactive: false })).listing!.publishedAt).toBeUndefined();
    });

    it('answers kept with a key by the previous release (the gRPC answer as JSON) replay the same answer, writing nothing', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Idem Stored Before');
      const applied = new AppliedRequests(store);
      const keep = (operation: string, req: { workspaceId: string; idempotencyKey: string }, result: unknown) =>
        store.transaction((tx) => applied.remember(requestKey(operation, req), JSON.stringify(result), tx));
      const createdAt = new Date('2031-01-02T03:04:05.678Z');
      const publishedAt = new Date('2031-01-03T00:00:00.000Z');
      const photoReq = { idempotencyKey: 'old-photo', workspaceId: ws, listingId: l.id, url: 'https://cdn.example.com/o.jpg', caption: 'Old' };
      const availabilityReq = {
        idempotencyKey: 'old-avail',
        workspaceId: ws,
        updates: [pb.AvailabilityUpdate.create({ listingId: l.id, from: '2031-04-01', to: '2031-04-02', price: 99 })],
      };
      const publishReq = { idempotencyKey: 'old-publish', workspaceId: ws, listingId: l.id };
      await keep('listing.addPhoto', photoReq, { id: 'pho_before', url: photoReq.url, caption: 'Old', position: 3, createdAt });
      await keep('listing.updateAvailability', availabilityReq, { listingIds: [l.id], daysUpdated: 2 });
      await keep('listing.publishListing', publishReq, { listingId: l.id, publishedAt, channels: ['CHANNEL_A'] });

      expect(await sut.client.call('addPhoto', photoReq)).toEqual({ photo: { id: 'pho_before', url: photoReq.url, caption: 'Old', position: 3, createdAt } });
      expect(await sut.client.call('updateAvailability', availabilityReq)).toEqual({ listingIds: [l.id], daysUpdated: 2 });
      expect(await sut.client.call('publishListing', publishReq)).toEqual({ listingId: l.id, publishedAt, channels: ['CHANNEL_A'] });
      expect((await sut.client.call('listPhotos', { workspaceId: ws, listingId: l.id })).photos).toEqual([]);
      expect((await calendar(ws, l.id, '2031-04-01', '2031-04-01')).days[0]?.price).toBe(l.defaultNightlyPrice);
      expect((await sut.client.call('getListing', { workspaceId: ws, id: l.id, allowInactive: false })).listing!.publishedAt).toBeUndefined();
    });

    it('a status change retried with its key after a later change answers the first outcome and changes nothing', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Idem Status');
      const off = () =>
        sut.client.call('setListingsActive', { idempotencyKey: 'status-key-1', workspaceId: ws, listingIds: [l.id], active: false, expectedVersion: 0 });
      const { listings: written, ...first } = await off();
      expect(first).toEqual({ active: false, updated: [l.id], unchanged: [] });
      // The first answer carries the listing as written; a replay has only the ids (the listing has moved on).
      expect(written.map((x) => [x.id, x.status])).toEqual([[l.id, 'inactive']]);
      await sut.client.call('setListingsActive', { idempotencyKey: '', workspaceId: ws, listingIds: [l.id], active: true, expectedVersion: 0 });
      const version = (await sut.client.call('getListing', { workspaceId: ws, id: l.id, allowInactive: true })).listing!.version;
      expect(await off()).toEqual({ ...first, listings: [] });
      const now = (await sut.client.call('getListing', { workspaceId: ws, id: l.id, allowInactive: true })).listing!;
      expect([now.status, now.version]).toEqual(['active', version]);
      const on = sut.client.call('setListingsActive', {
        idempotencyKey: 'status-key-1',
        workspaceId: ws,
        listingIds: [l.id],
        active: true,
        expectedVersion: 0,
      });
      expect((await errorOf(on)).code).toBe('idempotency_conflict');
    });
  });

  describe('activity and tenancy', () => {
    /** Every data call of the service, addressed at `listingId`. */
    const everyCall = (workspaceId: string, listingId: string): [string, () => Promise<unknown>][] => [
      ['getCalendar', () => calendar(workspaceId, listingId, '2025-01-01', '2025-01-02')],
      ['updateAvailability', () => update(workspaceId, { listingId, from: '2025-01-01', to: '2025-01-02', price: 1 })],
      ['getContent', () => sut.client.call('getContent', { workspaceId, listingId })],
      ['putContent', () => put(workspaceId, listingId, [section('description', 'x')])],
      ['listPhotos', () => sut.client.call('listPhotos', { workspaceId, listingId })],
      ['addPhoto', () => sut.client.call('addPhoto', { idempotencyKey: '', workspaceId, listingId, url: 'https://cdn.example.com/x.jpg', caption: '' })],
      ['removePhoto', () => sut.client.call('removePhoto', { workspaceId, listingId, photoId: 'pho_any' })],
      ['publishListing', () => sut.client.call('publishListing', { idempotencyKey: '', workspaceId, listingId })],
    ];

    it('answers listing_inactive on every call, by id and by channel id, and hides the stored data', async () => {
      const ws = await workspace();
      const l = await create(ws, 'Gone Quiet', { defaultNightlyPrice: 100 });
      await update(ws, { listingId: l.id, from: '2025-01-01', to: '2025-01-01', price: 55 });
      await put(ws, l.id, [section('description', 'Before deactivation')]);
      await sut.client.call('addPhoto', { idempotencyKey: '', workspaceId: ws, listingId: l.id, url: 'https://cdn.example.com/q.jpg', caption: '' });
      await deactivate(ws, l.id);
      for (const id of [l.id, l.channels[0]!.externalId]) {
        for (const [name, call] of everyCall(ws, id)) {
          const err = await errorOf(call());
          expect([name, err.code]).toEqual([name, 'listing_inactive']);
          expect(err.details.listings).toEqual([{ id: l.id, name: 'Gone Quiet' }]);
        }
      }
      // Nothing was written while inactive: after activation the data is as it was.
      await sut.client.call('setListingsActive', { idempotencyKey: '', workspaceId: ws, listingIds: [l.id], active: true, expectedVersion: 0 });
      expect((await calendar(ws, l.id, '2025-01-01', '2025-01-02')).days.map((d) => d.price)).toEqual([55, 100]);
      expect((await sut.client.call('getContent', { workspaceId: ws, listingId: l.id })).sections).toEqual([section('description', 'Before deactivation')]);
      expect((await sut.client.call('listPhotos', { workspaceId: ws, listingId: l.id })).photos).toHaveLength(1);
      const { listing } = await sut.client.call('getListing', { workspaceId: ws, id: l.id, allowInactive: false });
      expect(listing!.publishedAt).toBeUndefined();
    });

    it('answers not_found on every call for a listing of another workspace, even an inactive one', async () => {
      const ws = await workspace();
      const stranger = await workspace();
      const active = await create(ws, 'Mine');
      const inactive = await create(ws, 'Mine Off');
      await deactivate(ws, inactive.id);
      for (const l of [active, inactive]) {
        for (const [name, call] of everyCall(stranger, l.id)) {
          const err = await errorOf(call());
          expect([name, err.code]).toEqual([name, 'not_found']);
        }
      }
    });

    it('refuses every call without a workspace as validation_failed', async () => {
      for (const [name, call] of everyCall('', 'lst_x')) {
        const err = await errorOf(call());
        expect([name, err.code, err.details.fields?.workspaceId]).toEqual([name, 'validation_failed', 'is required']);
      }
    });
  });
});

describe('content relay to the PMS', () => {
  const store = createMemoryStore();
  const listings = new ListingStore(store);
  const outbox = new Outbox(store, createMemoryBus(), createLogger('listing', 'silent'));
  const applied = new AppliedRequests(store);
  const withRelay = (contentRelay: ContentRelay): ListingDeps => ({
    store,
    listings,
    data: new DataStore(store),
    marks: new PmsSyncMarks(store),
    outbox,
    applied,
    contentRelay,
    bookings: { list: async () => [] },
  });

  const insert = (pmsProvider: string): Promise<ListingRecord> => {
    const now = new Date();
    const id = `lst_relay_${pmsProvider || 'none'}`;
    return store.transaction((tx) =>
      listings.insert(
        {
          id,
          workspaceId: 'ws_relay',
          name: id,
          status: 'active',
          version: 1,
          channels: [],
          address: { line1: '', line2: '', city: '', region: '', postalCode: '', country: '' },
          timezone: 'UTC',
          currency: 'EUR',
          maxGuests: 2,
          bedrooms: 1,
          bathrooms: 1,
          beds: 1,
          checkInTime: '15:00',
          checkOutTime: '11:00',
          pmsProvider,
          pmsExternalId: '',
          defaultNightlyPrice: 100,
          cleaningFee: 0,
          taxRate: 0,
          publishedAt: null,
          activityVersion: 1,
          createdAt: now,
          updatedAt: now,
        },
        tx,
      ),
    );
  };

  it('relays only the sections the PMS can store, before storing them', async () => {
    const l = await insert('PMS-G');
    const relayed: unknown[] = [];
    const relay: ContentRelay = { apply: async (listing, sections) => void relayed.push([listing.id, sections]) };
    const res = await putContent(withRelay(relay), {
      workspaceId: 'ws_relay',
      listingId: l.id,
      sections: [section('rooms', { bedrooms: 1, bathrooms: 1, beds: 1 }), section('description', 'Hi')],
      expectedVersion: 0,
    });
    expect(res.applied).toEqual(['description']);
    expect(relayed).toEqual([[l.id, { description: 'Hi' }]]);
  });

  it('stores nothing when the PMS refuses, and never relays for a listing without a PMS', async () => {
    const pms = await insert('PMS-A');
    const plain = await insert('');
    const relay: ContentRelay = {
      apply: async (listing) => {
        if (!listing.pmsProvider) throw new Error('relayed a listing without a PMS');
        throw new AppError('pms_unavailable');
      },
    };
    const deps = withRelay(relay);
    const err = await errorOf(putContent(deps, { workspaceId: 'ws_relay', listingId: pms.id, sections: [section('description', 'Hi')], expectedVersion: 0 }));
    expect(err.code).toBe('pms_unavailable');
    expect((await getContent(deps, { workspaceId: 'ws_relay', listingId: pms.id })).content.sections).toEqual({});
    const ok = await putContent(deps, { workspaceId: 'ws_relay', listingId: plain.id, sections: [section('description', 'Hi')], expectedVersion: 0 });
    expect(ok.applied).toEqual(['description']);
  });
});
