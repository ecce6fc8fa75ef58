// The API's JSON of a listing's data (calendar, availability batch result, content, publish
// result), from the listing service's proto replies; the types are the schemas'
// (./schemas/listing-data.ts).
import type { z } from 'zod';
import type { listing as pb } from '@vrp/contracts';
import type { availabilityResultSchema, calendarSchema, contentResponseSchema, contentWriteResultSchema, publishResultSchema } from './schemas/listing-data';

export type ApiCalendar = z.infer<typeof calendarSchema>;
export type ApiAvailabilityResult = z.infer<typeof availabilityResultSchema>;
export type ApiContent = z.infer<typeof contentResponseSchema>;
export type ApiContentWriteResult = z.infer<typeof contentWriteResultSchema>;
export type ApiPublishResult = z.infer<typeof publishResultSchema>;

const isoOrNull = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

/** Content sections travel as JSON text per section. */
export const parseSections = (sections: pb.ContentSection[]): Record<string, unknown> =>
  Object.fromEntries(sections.map((s) => [s.name, JSON.parse(s.valueJson) as unknown]));

export function toApiCalendar(res: pb.GetCalendarResponse): ApiCalendar {
  const days = res.days.map((d) => ({ date: d.date, available: d.available, price: d.price, minNights: d.minNights, reservationId: d.reservationId || null }));
  return { listingId: res.listingId, currency: res.currency, days };
}

export function toApiAvailabilityResult(res: pb.UpdateAvailabilityResponse): ApiAvailabilityResult {
  return { listingIds: res.listingIds, daysUpdated: res.daysUpdated };
}

export function toApiContent(res: pb.GetContentResponse): ApiContent {
  // The listing service stores only sections its content rules (the same limits) accepted.
  return { listingId: res.listingId, sections: parseSections(res.sections) as ApiContent['sections'], updatedAt: isoOrNull(res.updatedAt) };
}

export function toApiContentWriteResult(res: pb.PutContentResponse): ApiContentWriteResult {
  return {
    listingId: res.listingId,
    applied: res.applied,
    deferred: res.deferred,
    pms: res.pmsProvider ? { provider: res.pmsProvider, errors: res.pmsErrors.map((e) => ({ section: e.section, message: e.message })) } : null,
    sections: parseSections(res.sections) as ApiContentWriteResult['sections'],
  };
}

export function toApiPublishResult(res: pb.PublishListingResponse): ApiPublishResult {
  return { listingId: res.listingId, publishedAt: isoOrNull(res.publishedAt), channels: res.channels };
}
