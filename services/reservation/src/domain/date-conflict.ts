// The reservation service's own error: a stay asked for nights that are taken. It travels as the
// catalog's `409 dates_unavailable` with `conflicts` naming every taken night (docs/api.md, "Errors").
import { AppError } from '@vrp/platform/errors';
import type { DATE_CONFLICT_REASONS } from '@vrp/api-model';

/** A night a stay cannot have: booked by a reservation, or closed on the listing's calendar. */
export interface DateConflict {
  date: string;
  reason: (typeof DATE_CONFLICT_REASONS)[number];
  /** The reservation holding the night (reason booked). */
  reservationId?: string;
}

/** 409 dates_unavailable naming every conflict (the first ten in the message). Nothing was written. */
export const datesUnavailable = (conflicts: DateConflict[]) =>
  new AppError(
    'dates_unavailable',
    `The stay is not available: ${conflicts
      .slice(0, 10)
      .map((c) => `${c.date} ${c.reason === 'booked' ? `is booked${c.reservationId ? ` (${c.reservationId})` : ''}` : 'is closed'}`)
      .join(', ')}${conflicts.length > 10 ? ` and ${conflicts.length - 10} more nights` : ''}. Nothing was written.`,
    { conflicts },
  );
