// Backfill of night occupancy: reservations stored before `booked_nights` existed hold no
// nights. At service start every PENDING / CONFIRMED reservation gets the nights of its stay;
// where two old reservations want one night, both are kept and flagged as conflicts exactly
// like a PMS overlap (`conflictsWith` on both, a new version and a reservation.updated event).
//
// - Idempotent: a reservation that already holds all its nights is left alone, so running it
//   again (after a crash, on every start) writes nothing.
// - Safe on concurrent replicas: each reservation is one transaction that re-reads it; two
//   replicas taking the same night collide on the unique night (the loser re-reads and finds
//   the work done) or on the reservation (a write conflict, retried by the store).
// - Resumable: the id of the last finished reservation is kept in `migrations`; the scan goes on
//   from there, in _id order, a batch at a time. Once the scan finds nothing more it is done.
// - Bounded in time: the start waits for it at most `budgetMs`; what is left goes on in the
//   background until done or until the service stops.
import type { DocumentStore } from '@vrp/platform/store';
import type { Logger } from '@vrp/platform/logging';
import type { Outbox } from '@vrp/platform/outbox';
import { OCCUPYING_STATUSES, holdsNights, stayClaim } from '../domain/booking';
import { recordReservationEvent } from '../publishers/reservation-events';
import type { MigrationStore } from '../store/migration-store';
import type { NightStore } from '../store/night-store';
import type { SettingsStore } from '../store/settings-store';
import type { ReservationStore } from '../store/reservation-store';
import { flagOverlaps, holdNights, retryWhileNightTaken } from './hold-nights';

export const NIGHT_BACKFILL = 'booked-nights-backfill';
const BATCH = 100;

export interface NightBackfillDeps {
  store: DocumentStore;
  reservations: ReservationStore;
  nights: NightStore;
  settings: SettingsStore;
  migrations: MigrationStore;
  outbox: Outbox;
  logger: Logger;
  now: () => Date;
}

export class NightBackfill {
  private stopped = false;
  private background: Promise<void> | null = null;

  constructor(private readonly deps: NightBackfillDeps) {}

  /**
   * Runs until done or until `budgetMs` passed (then the rest continues in the background).
   * Resolves true when everything is backfilled.
   */
  async start(budgetMs: number): Promise<boolean> {
    const deadline = Date.now() + budgetMs;
    const done = await this.run(() => Date.now() >= deadline);
    if (!done && !this.stopped) {
      this.deps.logger.warn({ budgetMs }, 'night backfill not finished within its start budget; it goes on in the background');
      this.background = this.run(() => false).then(
        () => undefined,
        (err: unknown) => this.deps.logger.error({ err }, 'night backfill failed; it resumes at the next start'),
      );
    }
    return done;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.background;
  }

  /** One pass from the stored cursor; true when the scan reached the end. */
  async run(outOfTime: () => boolean): Promise<boolean> {
    let { after, done } = await this.deps.migrations.progress(NIGHT_BACKFILL);
    let flagged = 0;
    while (!done) {
      if (this.stopped || outOfTime()) return false;
      const batch = await this.deps.reservations.reservations.find(
        { status: { $in: [...OCCUPYING_STATUSES] }, ...(after ? { _id: { $gt: after } } : {}) },
        { sort: { _id: 1 }, limit: BATCH, projection: { _id: 1 } },
      );
      for (const { _id } of batch) flagged += (await this.backfillOne(_id)) ? 1 : 0;
      done = batch.length < BATCH;
      if (batch.length > 0) after = batch[batch.length - 1]!._id;
      await this.deps.migrations.advance(NIGHT_BACKFILL, after, done, this.deps.now());
    }
    if (flagged > 0) this.deps.logger.warn({ flagged }, 'night backfill: overlapping reservations were kept and flagged as conflicts');
    this.deps.outbox.flushSoon();
    return true;
  }

  /** Gives one reservation the nights it lacks; true when it overlaps another (both flagged). */
  private backfillOne(id: string): Promise<boolean> {
    // Another replica may take one of these nights meanwhile: the retry re-reads (it may have done the work).
    return retryWhileNightTaken(() =>
      this.deps.store.transaction(async (tx) => {
        const r = await this.deps.reservations.byId(id, tx);
        if (!r || !holdsNights(r)) return false;
        const settings = await this.deps.settings.of(r.workspaceId, tx);
        const wanted = stayClaim(r, 'pms', settings).nights;
        const held = await this.deps.nights.holders(r.workspaceId, r.propertyId, wanted, tx);
        if (held.filter((h) => h.reservationId === r.id).length === wanted.length) return false;
        // Held as a PMS booking is: the reservation keeps what it has, takes the free nights,
        // and it and each reservation holding one of its nights are flagged.
        const overlaps = await holdNights(this.deps.nights, r, 'pms', settings, tx);
        const fresh = overlaps.filter((o) => !r.conflictsWith.includes(o));
        if (fresh.length === 0) return false;
        const at = this.deps.now();
        const self = await this.deps.reservations.addConflicts(r.workspaceId, r.id, fresh, at, tx);
        if (self) await recordReservationEvent(this.deps.outbox, tx, 'updated', self, at);
        await flagOverlaps(this.deps, r.workspaceId, r.id, fresh, at, tx);
        return true;
      }),
    );
  }
}
