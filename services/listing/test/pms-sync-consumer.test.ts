// Component test: the listing service's pms.sync.v1 consumer over real gRPC with embedded
// engines. Imports, the "deleted" answer of FindPmsListing and the re-import by a newer PMS
// change, and the changes that can never apply (unreadable payload, channel id taken) becoming
// dead letters while the partition moves on.
import { ops, pmsSync, TOPICS, type ListingSyncPayload } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { useListingService } from './support';

const WS = 'ws_sync';

describe('listing service: pms.sync.v1 consumer', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  let deadLetters: Upstream<ops.DeadLetterServiceClient>;
  let seq = 0;

  const sut = useListingService({ store, bus });

  beforeAll(async () => {
    deadLetters = createUpstream(ops.DeadLetterServiceClient, { name: 'listing-dead-letters', address: sut.address });
    await sut.client.call('setWorkspacePlan', { workspaceId: WS, activeListingLimit: 10 });
  });
  afterAll(() => deadLetters.close());

  /** A listing change of PMS-B, keyed like the pms-adapter keys it (the PMS listing id). */
  /** `null`: a change that names a listing and carries none (malformed). */
  const change = (externalId: string, payload: Partial<ListingSyncPayload> | null, at: string) => ({
    key: externalId,
    value: pmsSync.PmsSyncChange.encode(
      pmsSync.PmsSyncChange.create({
        changeId: `chg_${++seq}`,
        workspaceId: WS,
        provider: 'PMS-B',
        entity: 'listing',
        externalId,
        listingExternalId: externalId,
        listing: payload === null ? undefined : { externalId, name: externalId, unlisted: false, channels: [], ...payload },
        occurredAt: new Date(at),
      }),
    ).finish(),
  });
  const publish = async (...messages: ReturnType<typeof change>[]) => {
    await bus.publish(TOPICS.pmsSync.name, messages);
    await bus.whenIdle();
  };
  const find = (externalId: string) => sut.client.call('findPmsListing', { workspaceId: WS, provider: 'PMS-B', externalId });
  const open = async () => (await deadLetters.call('listDeadLetters', ops.ListDeadLettersRequest.create({ workspaceId: WS }))).deadLetters;

  it('answers FindPmsListing with the imported listing, "deleted" after the workspace deletes it, and the new listing after a newer PMS change', async () => {
    const first = change('b-1', { name: 'Bay One' }, '2026-01-01T00:00:00Z');
    await publish(first);
    const imported = (await find('b-1')).listing!;
    expect(imported).toMatchObject({ name: 'Bay One', pmsProvider: 'PMS-B', pmsExternalId: 'b-1' });
    expect((await find('b-1')).deleted).toBe(false);
    expect(await find('never-imported')).toEqual({ deleted: false });

    await sut.client.call('deleteListing', { workspaceId: WS, id: imported.id });
    expect(await find('b-1')).toEqual({ deleted: true });
    // A redelivery of the old change does not bring it back; a newer change of the PMS does.
    await publish(first);
    expect(await find('b-1')).toEqual({ deleted: true });
    await publish(change('b-1', { name: 'Bay One again' }, '2026-01-02T00:00:00Z'));
    const back = await find('b-1');
    expect(back.deleted).toBe(false);
    expect(back.listing).toMatchObject({ name: 'Bay One again', pmsExternalId: 'b-1' });
    expect(back.listing!.id).not.toBe(imported.id);
    // Another workspace never sees it.
    expect(await sut.client.call('findPmsListing', { workspaceId: 'ws_other', provider: 'PMS-B', externalId: 'b-1' })).toEqual({ deleted: false });
    await expect(sut.client.call('findPmsListing', { workspaceId: WS, provider: '', externalId: 'b-1' })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('dead-letters an unreadable change and a channel id taken by another listing; the partition moves on', async () => {
    await publish(change('b-2', { name: 'Two', channels: [{ channel: 'CHANNEL_A', externalId: 'cha-shared' }] }, '2026-01-01T00:00:00Z'));
    await publish(
      change('b-3', null, '2026-01-01T00:00:00Z'),
      change('b-3', { name: 'Three', channels: [{ channel: 'CHANNEL_A', externalId: 'cha-shared' }] }, '2026-01-01T00:00:01Z'),
      change('b-3', { name: 'Three', channels: [{ channel: 'CHANNEL_A', externalId: 'cha-three' }] }, '2026-01-01T00:00:02Z'),
    );
    // The last change of b-3 (a channel id of its own) is applied behind the two bad ones.
    expect((await find('b-3')).listing).toMatchObject({ name: 'Three', channels: [{ channel: 'CHANNEL_A', externalId: 'cha-three' }] });
    const found = await open();
    expect(found.map((d) => [d.errorCode, d.reason, d.attempts, d.key])).toEqual([
      ['channel_id_taken', 'permanent', 1, 'b-3'],
      ['malformed_payload', 'permanent', 1, 'b-3'],
    ]);
    expect(found[0]!.errorMessage).toContain('already mapped to another listing');
    // Replaying the channel conflict now finds the listing up to date (idempotent): nothing changes.
    const replayed = await deadLetters.call('replayDeadLetter', { id: found[0]!.id });
    expect(replayed.deadLetter?.replayedAt).toBeInstanceOf(Date);
    expect((await find('b-3')).listing?.channels).toEqual([{ channel: 'CHANNEL_A', externalId: 'cha-three' }]);
    // The unreadable one stays unreadable: its replay fails and it stays open.
    const malformedReplay = await deadLetters.call('replayDeadLetter', { id: found[1]!.id }).catch((err: unknown) => err);
    expect(malformedReplay).toBeInstanceOf(AppError);
    expect((malformedReplay as AppError).code).toBe('conflict');
    expect(await open()).toEqual([expect.objectContaining({ id: found[1]!.id, attempts: 2, errorCode: 'malformed_payload' })]);
  });
});
