// Contact changes from a PMS, over HTTP: a guest's new phone or email, changed on the PMS side of a synced
// reservation, updates the guest profile (docs/guests.md, "Contact changes from a PMS"): the
// old value is replaced, the profile's own name is kept, the version (ETag) moves once and a
// guest.updated webhook fires; a repeated sync changes nothing. Data comes from the simulator's
// control API, the admin API and the API only.
import { eventually, startTestStack, type TestStack } from './support/stack';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';
import { pmsWorkspace, simulatorOf, syncNow } from './support/workspaces';

interface Guest {
  id: string;
  firstName: string;
  contacts: { type: string; value: string; isPrimary: boolean }[];
  version: number;
}

describe('guest contact changes from a PMS', () => {
  let t: TestStack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startTestStack();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.stop();
  });

  it('replaces the phone and email on the profile, keeps local edits, and is idempotent', async () => {
    const pms = simulatorOf(t);
    const w = await pmsWorkspace(t, 'PMS-D', ['fjord']);
    const listingExternalId = `${w.account}-fjord`;
    const hook = await w.api<{ data: { id: string } }>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['guest.updated'] });
    expect(hook.status).toBe(201);

    await pms.putReservation('PMS-D', w.account, 'stay-1', {
      listing_id: listingExternalId,
      arrival: '2034-03-01',
      departure: '2034-03-05',
      adults: 2,
      guest: { first_name: 'Ines', last_name: 'Berg', email: 'ines@old.example', phone: '+47 400 11 222' },
    });
    expect((await syncNow(t, w.id, w.connectionId)).status).toBe(200);
    let guest: Guest | undefined;
    await eventually(async () => !!(guest = (await w.api<{ data: Guest[] }>('GET', '/v1/guests?search=ines')).body.data[0]), 5000, 'the synced guest');
    expect(guest!.contacts).toEqual([
      { type: 'EMAIL', value: 'ines@old.example', isPrimary: true },
      { type: 'PHONE', value: '+47 400 11 222', isPrimary: false },
    ]);

    // A local edit of the name through the API.
    const renamed = await w.api<{ data: Guest }>('PATCH', `/v1/guests/${guest!.id}`, { firstName: 'Inés' });
    expect(renamed.status).toBe(200);
    const localVersion = renamed.body.data.version;

    // The PMS changes the stay's guest contact (and spells the name its own way).
    await pms.putReservation('PMS-D', w.account, 'stay-1', { guest: { first_name: 'INES', phone: '+47 499 00 000', email: 'ines@new.example' } });
    expect((await syncNow(t, w.id, w.connectionId)).body.data.changesPublished).toBe(1);
    let after: Guest | undefined;
    await eventually(
      async () => (after = (await w.api<{ data: Guest }>('GET', `/v1/guests/${guest!.id}`)).body.data).version > localVersion,
      5000,
      'the contact change',
    );
    expect(after).toMatchObject({
      id: guest!.id,
      firstName: 'Inés',
      version: localVersion + 1,
      contacts: [
        { type: 'EMAIL', value: 'ines@new.example', isPrimary: true },
        { type: 'PHONE', value: '+47 499 00 000', isPrimary: false },
      ],
    });
    const read = await w.api<{ data: Guest }>('GET', `/v1/guests/${guest!.id}`);
    expect(read.headers.get('etag')).toBe(`"${localVersion + 1}"`);
    // A client holding the version before the sync is told so.
    const stale = await w.api('PATCH', `/v1/guests/${guest!.id}`, { lastName: 'B.' }, { headers: { 'if-match': `"${localVersion}"` } });
    expect(stale.status).toBe(412);

    // The webhook carries the profile as the API shows it.
    await eventually(
      () => receiver.received.some((r) => (r.json.data.object as { contacts?: Guest['contacts'] }).contacts?.some((c) => c.value === '+47 499 00 000')),
      10_000,
      'guest.updated with the new phone',
    );

    // Syncing again (nothing new on the PMS side) changes nothing.
    expect((await syncNow(t, w.id, w.connectionId)).body.data.changesPublished).toBe(0);
    expect((await w.api<{ data: Guest }>('GET', `/v1/guests/${guest!.id}`)).body.data.version).toBe(localVersion + 1);

    // The old phone no longer leads to this profile: a stay booked with it gets its own.
    await pms.putReservation('PMS-D', w.account, 'stay-2', {
      listing_id: listingExternalId,
      arrival: '2034-04-01',
      departure: '2034-04-03',
      guest: { first_name: 'Someone', last_name: 'Else', phone: '+47 400 11 222' },
    });
    await syncNow(t, w.id, w.connectionId);
    await eventually(async () => (await w.api<{ data: Guest[] }>('GET', '/v1/guests?search=someone')).body.data.length === 1, 5000, 'a profile of its own');
  });
});
