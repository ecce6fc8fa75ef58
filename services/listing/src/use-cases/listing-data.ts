// The data of a listing: calendar (availability + prices), content, photos and publishing. Every
// call is workspace-scoped and addresses the listing by id or by a mapped channel id. Order of
// refusals: validation_failed (malformed request), then not_found (an id not in the workspace),
// then listing_inactive (spec 7: 404 is decided before 403), then pms_write_unsupported. The
// data of an inactive listing is never read or written here.
//
// One file per part: calendar.ts, content.ts, photos.ts, publish.ts, sharing data-context.ts. The
// use cases answer domain records (calendar days, stored content, photos, outcomes);
// grpc/handlers.ts encodes them through grpc/mappers.ts.
import { calendarUseCases } from './calendar';
import { contentUseCases } from './content';
import { dataContext, type ListingDataDeps } from './data-context';
import { photoUseCases } from './photos';
import { publishUseCases } from './publish';

export type { ContentRelay, ListingDataDeps } from './data-context';

export function listingDataUseCases(deps: ListingDataDeps) {
  const ctx = dataContext(deps);
  return { ...calendarUseCases(deps, ctx), ...contentUseCases(deps, ctx), ...photoUseCases(deps, ctx), ...publishUseCases(deps, ctx) };
}
