// The listing service's ContentRelay over the one PMS relay client (@vrp/pms-relay): each content
// section goes to the PMS managing the listing as the write `content.<section>` of the capability
// matrix. Sections are sent one by one (the PMS stores each whole); a failure stops the relay and
// propagates, so the content use case stores nothing. The idempotency key is derived from the
// listing, section and value, so a retried PUT of the same content is applied once by the PMS.
import { createHash } from 'node:crypto';
import type { PmsRelay } from '@vrp/pms-relay';
import { inSectionOrder, type SectionValues } from '../domain/content';
import type { ListingRecord } from '../domain/listing';

/**
 * Hands content sections to the PMS that manages a listing. Called only with sections the
 * capability matrix says the PMS can store, and before anything is stored here: if it throws,
 * nothing is stored and the error propagates.
 */
export interface ContentRelay {
  apply(listing: ListingRecord, sections: SectionValues): Promise<void>;
}

export function pmsContentRelay(relay: PmsRelay): ContentRelay {
  return {
    async apply(listing: ListingRecord, sections: SectionValues): Promise<void> {
      for (const [section, value] of inSectionOrder(sections)) {
        const payloadJson = JSON.stringify(value);
        const digest = createHash('sha256').update(`${listing.id}\n${section}\n${payloadJson}`).digest('hex').slice(0, 32);
        await relay.relay({
          workspaceId: listing.workspaceId,
          provider: listing.pmsProvider,
          operation: `content.${section}`,
          listingExternalId: listing.pmsExternalId,
          entityExternalId: '',
          payload: value,
          idempotencyKey: `content-${digest}`,
        });
      }
    },
  };
}
