// The API's JSON of a guest profile (docs/guests.md), from the guest service's proto message.
// Responses and webhook payloads (guest.created / guest.updated) both use it; the type is the
// schema's (./schemas/guest.ts).
import type { z } from 'zod';
import type { guest as pb } from '@vrp/contracts';
import type { guestSchema } from './schemas/guest';

export type ApiGuest = z.infer<typeof guestSchema>;
export type ApiGuestContact = ApiGuest['contacts'][number];

const iso = (d: Date | undefined): string => (d ?? new Date(0)).toISOString();

export function toApiGuest(g: pb.Guest): ApiGuest {
  return {
    id: g.id,
    firstName: g.firstName,
    lastName: g.lastName,
    language: g.language,
    contacts: g.contacts.map((c) => ({ type: c.type === 'PHONE' ? 'PHONE' : 'EMAIL', value: c.value, isPrimary: c.isPrimary })),
    pms: g.provider ? { provider: g.provider, externalId: g.externalId } : null,
    createdAt: iso(g.createdAt),
    updatedAt: iso(g.updatedAt ?? g.createdAt),
    version: g.version,
  };
}
