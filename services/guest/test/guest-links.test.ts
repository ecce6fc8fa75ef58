// Profiles written before guest_reservation_links embedded their reservation links: the guest
// service's start moves them into their own documents (GuestStore.migrateEmbeddedLinks), and a
// reservation event then finds the reservation linked as before.
import { createMemoryStore } from '@vrp/engines/store';
import { GuestStore } from '../src/store/guest-store';

describe('reservation links embedded by older profiles', () => {
  const store = createMemoryStore();
  const guests = new GuestStore(store);
  const at = new Date('2025-01-01T00:00:00Z');
  const legacy = (id: string, reservations: Record<string, unknown>[]) => ({
    _id: id,
    workspaceId: 'ws_l',
    firstName: 'Old',
    lastName: 'Profile',
    contacts: [{ type: 'EMAIL' as const, value: 'old@example.com', isPrimary: true }],
    reservations,
    listingIds: [...new Set(reservations.map((r) => r.listingId as string))],
    searchName: 'old profile',
    createdAt: at,
    updatedAt: at,
    version: 3,
  });

  afterAll(() => store.close());

  it('are moved into their own documents, the profile keeping its fields, once', async () => {
    await guests.guests.insertOne(
      legacy('gst_old', [
        { reservationId: 'res_a', listingId: 'lst_1', changedAt: at, email: 'old@example.com', phone: '' },
        { reservationId: 'res_b', listingId: 'lst_2', changedAt: null, email: '', phone: '600111222' },
      ]) as never,
    );
    await guests.guests.insertOne(legacy('gst_none', []) as never);
    expect(await guests.migrateEmbeddedLinks()).toBe(2);

    expect(await guests.linkOf('ws_l', 'res_a')).toEqual({
      guestId: 'gst_old',
      link: { reservationId: 'res_a', listingId: 'lst_1', changedAt: at, email: 'old@example.com', phone: '' },
    });
    expect((await guests.linksOf('ws_l', 'gst_old')).map((l) => l.reservationId).sort()).toEqual(['res_a', 'res_b']);
    const found = await guests.byReservation('ws_l', 'res_b');
    expect(found?.guest).toMatchObject({ id: 'gst_old', version: 3, listingIds: ['lst_1', 'lst_2'], contacts: [{ value: 'old@example.com' }] });
    expect(found?.guest).not.toHaveProperty('reservations');
    expect(await guests.guests.findOne({ _id: 'gst_old' })).not.toHaveProperty('reservations');

    // A second start finds nothing left to move and changes nothing.
    expect(await guests.migrateEmbeddedLinks()).toBe(0);
    expect(await guests.linksOf('ws_l', 'gst_old')).toHaveLength(2);
  });

  it('a link already moved is kept when a start interrupted half-way runs again', async () => {
    await guests.guests.insertOne(legacy('gst_half', [{ reservationId: 'res_h', listingId: 'lst_1', changedAt: at, email: '', phone: '' }]) as never);
    const later = new Date('2025-02-01T00:00:00Z');
    await store.transaction((tx) => guests.putLink('ws_l', 'gst_half', { reservationId: 'res_h', listingId: 'lst_9', changedAt: later }, tx));
    expect(await guests.migrateEmbeddedLinks()).toBe(1);
    expect((await guests.linkOf('ws_l', 'res_h'))?.link).toMatchObject({ listingId: 'lst_9', changedAt: later });
  });

  it('a reservation is never re-linked to another profile', async () => {
    await expect(store.transaction((tx) => guests.putLink('ws_l', 'gst_other', { reservationId: 'res_a', listingId: 'lst_1' }, tx))).rejects.toThrow();
    expect((await guests.linkOf('ws_l', 'res_a'))?.guestId).toBe('gst_old');
  });
});
