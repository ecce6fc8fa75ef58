// The example decodes what the pms-adapter publishes: messages encoded by this repository's
// generated code (ts-proto, used here only to produce the bytes, as the adapter does) are read
// back by the example from the .proto files alone, for every entity of the oneof.
import { pmsSync } from '@vrp/contracts';
import type protobuf from 'protobufjs';
import { decodeChange, loadPmsSyncChange } from '../src/decode';

describe('example: an outside consumer of pms.sync.v1', () => {
  let type: protobuf.Type;
  beforeAll(async () => {
    type = await loadPmsSyncChange();
  });

  const base = { workspaceId: 'ws_1', connectionId: 'con_1', provider: 'PMS-G', listingExternalId: 'L1', occurredAt: new Date('2030-05-01T10:00:00.250Z') };
  const at = new Date('2030-05-01T09:59:00Z');

  it('decodes a guest message with its attachments, its times as dates', () => {
    const bytes = pmsSync.PmsSyncChange.encode(
      pmsSync.PmsSyncChange.create({
        ...base,
        changeId: 'chg_con_1_7',
        entity: 'message',
        externalId: 'M1',
        message: {
          externalId: 'M1',
          conversationExternalId: 'T1',
          direction: 'inbound',
          body: 'Hi',
          attachments: [{ url: 'https://f.example/a.jpg', name: 'a.jpg' }],
          sentAt: at,
        },
      }),
    ).finish();
    const change = decodeChange(type, bytes);
    expect(change).toMatchObject({
      changeId: 'chg_con_1_7',
      provider: 'PMS-G',
      entity: 'message',
      externalId: 'M1',
      listingExternalId: 'L1',
      occurredAt: new Date('2030-05-01T10:00:00.250Z'),
    });
    expect(change.payload).toMatchObject({
      conversationExternalId: 'T1',
      direction: 'inbound',
      body: 'Hi',
      attachments: [{ url: 'https://f.example/a.jpg', name: 'a.jpg' }],
      sentAt: at,
    });
  });

  it('tells every entity apart by the oneof member that is set', () => {
    const cases: [string, Partial<pmsSync.PmsSyncChange>, Record<string, unknown>][] = [
      [
        'listing',
        { listing: { externalId: 'L1', name: 'Flat', unlisted: true, channels: [{ channel: 'CHANNEL_A', externalId: 'a-1' }], bedrooms: 2 } },
        { name: 'Flat', unlisted: true, bedrooms: 2 },
      ],
      [
        'reservation',
        {
          reservation: {
            externalId: 'R1',
            listingExternalId: 'L1',
            status: 'CONFIRMED',
            source: 'DIRECT',
            checkIn: '2030-06-01',
            checkOut: '2030-06-03',
            guest: { firstName: 'Ana' },
            totalPrice: 250,
            updatedAt: at,
          },
        },
        { status: 'CONFIRMED', checkIn: '2030-06-01', guest: { firstName: 'Ana' }, totalPrice: 250, updatedAt: at },
      ],
      ['guest', { guest: { externalId: 'G1', firstName: 'Bo', email: 'bo@example.com', updatedAt: at } }, { firstName: 'Bo', email: 'bo@example.com' }],
      [
        'review',
        { review: { externalId: 'V1', rating: 4, body: 'Nice', reply: { body: 'Thanks', repliedAt: at }, submittedAt: at, updatedAt: at } },
        { rating: 4, reply: { body: 'Thanks', repliedAt: at } },
      ],
      [
        'request',
        {
          request: {
            externalId: 'Q1',
            guest: { firstName: 'Rae' },
            checkIn: '2030-07-01',
            checkOut: '2030-07-04',
            guests: 2,
            status: 'pending',
            updatedAt: at,
          },
        },
        { guests: 2, status: 'pending' },
      ],
      [
        'inquiry',
        {
          inquiry: {
            externalId: 'I1',
            guest: { firstName: 'Ole' },
            checkIn: '2030-08-01',
            checkOut: '2030-08-02',
            guests: 1,
            status: 'pre_approved',
            updatedAt: at,
          },
        },
        { status: 'pre_approved' },
      ],
    ];
    for (const [entity, member, expected] of cases) {
      const bytes = pmsSync.PmsSyncChange.encode(
        pmsSync.PmsSyncChange.create({ ...base, changeId: `chg_${entity}`, entity, externalId: 'x', ...member }),
      ).finish();
      const change = decodeChange(type, bytes);
      expect([change.entity, change.payload]).toEqual([entity, expect.objectContaining(expected)]);
    }
  });

  it('refuses a change that carries no entity, and bytes that are not a change', () => {
    const empty = pmsSync.PmsSyncChange.encode(pmsSync.PmsSyncChange.create({ ...base, changeId: 'chg_empty', entity: 'review' })).finish();
    expect(() => decodeChange(type, empty)).toThrow('carries no entity');
    expect(() => decodeChange(type, Uint8Array.from([0x0a, 0xff]))).toThrow();
  });
});
