// The API's JSON of a guest profile (spec 2.2), from the guest service's proto message.
// Responses and webhook payloads (guest.created / guest.updated) both use it.
import type { guest as pb } from '@vrp/contracts';

export interface ApiGuestContact {
  type: 'EMAIL' | 'PHONE';
  value: string;
  isPrimary: boolean;
}

export interface ApiGuest {
  id: string;
  firstName: string;
  lastName: string;
  language: string;
  contacts: ApiGuestContact[];
  /** The PMS the guest is linked to and its id there; null for a local profile. */
  pms: { provider: string; externalId: string } | null;
  createdAt: string;
  updatedAt: string;
  /** Incremented by every change; the `ETag` of single-record responses is `"<version>"`. */
  version: number;
}

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
