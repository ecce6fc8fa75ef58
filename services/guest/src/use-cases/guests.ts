// Guest profile use cases: reads under the visibility rule (domain/guest.ts), create and update
// (relayed to the guest's PMS when it has one, refused before anything is sent when the PMS
// cannot write guests). Every change and its event are written in one transaction; replaying an
// input changes nothing. Profiles also arrive from reservations (apply-reservation.ts) and from
// PMS sync (apply-pms-guest.ts).
import { acquireLease, DuplicateKeyError, releaseLease, type Lease } from '@vrp/platform/store';
import { AppError, notFound, preconditionFailed, validationFailed } from '@vrp/platform/errors';
import { newId } from '@vrp/platform/ids';
import type { PageWindow } from '@vrp/platform/paging';
import type { RequestKey } from '@vrp/platform/applied-requests';
import { assertSupported } from '@vrp/pms-matrix';
import { contactsFrom, DEFAULT_LANGUAGE, matchKeysOf, type GuestRecord } from '../domain/guest';
import { createGuestProblems, updateGuestProblems, type CreateGuestInput, type UpdateGuestInput } from '../domain/guest-input';
import { guestEvent } from '../publishers/events';
import { type GuestDeps } from './deps';

export type { CreateGuestInput, UpdateGuestInput };

/** Read-decide-write rounds of a PATCH while other changes of the same profile commit first. */
const UPDATE_ATTEMPTS = 8;

export function listGuests(deps: GuestDeps, workspaceId: string, search: string, window: PageWindow) {
  return deps.guests.page(workspaceId, search, deps.access.inactiveIds(workspaceId), window);
}

/** 404 first (another workspace's id too), then 403 when every reservation is on an inactive listing. */
export async function getGuest(deps: GuestDeps, workspaceId: string, id: string): Promise<GuestRecord> {
  const guest = await deps.guests.get(workspaceId, id);
  deps.access.assertGuestVisible(workspaceId, guest.listingIds);
  return guest;
}

/**
 * A retry of a create that already committed (even one whose reply was lost) answers it: the
 * key is stored in applied_requests with the profile, in its transaction, and checked before
 * anything is sent to a PMS; the same key with another body is idempotency_conflict.
 */
export async function createGuest(deps: GuestDeps, workspaceId: string, input: CreateGuestInput, key: RequestKey | null = null): Promise<GuestRecord> {
  const problems = createGuestProblems(input);
  if (Object.keys(problems).length) throw validationFailed(problems);
  return deps.applied.once(
    key,
    () => createOnce(deps, workspaceId, input, key),
    (id) => deps.guests.get(workspaceId, id),
  );
}

async function createOnce(deps: GuestDeps, workspaceId: string, input: CreateGuestInput, key: RequestKey | null): Promise<GuestRecord> {
  const idempotencyKey = key?.key ?? '';
  // Creates stored before applied_requests existed keep their key on the profile only.
  if (idempotencyKey) {
    const done = await deps.guests.byIdempotencyKey(workspaceId, idempotencyKey, new Date());
    if (done) return done;
  }
  // Refused before anything is sent when the PMS cannot write guests (docs/api.md, "Writes that a PMS cannot perform").
  if (input.provider) assertSupported(input.provider, 'guest.write');
  const id = newId('gst');
  const now = new Date();
  const guest: GuestRecord = {
    id,
    workspaceId,
    firstName: input.firstName.trim(),
    lastName: input.lastName.trim(),
    language: input.language || DEFAULT_LANGUAGE,
    contacts: contactsFrom(input),
    provider: input.provider,
    externalId: '',
    listingIds: [],
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  if (input.provider) {
    const { entityExternalId } = await deps.pms.relay({
      workspaceId,
      provider: input.provider,
      operation: 'guest.write',
      listingExternalId: '',
      entityExternalId: '',
      payload: { firstName: guest.firstName, lastName: guest.lastName, language: guest.language, email: input.email, phone: input.phone },
      idempotencyKey: idempotencyKey ? `${workspaceId}:${idempotencyKey}` : id,
    });
    guest.externalId = entityExternalId;
  }
  try {
    const created = await deps.store.transaction(async (tx) => {
      if (idempotencyKey) await deps.guests.releaseExpiredKey(workspaceId, idempotencyKey, now, tx);
      const saved = await deps.guests.insert(guest, tx, null, idempotencyKey);
      await deps.applied.remember(key, saved.id, tx);
      await deps.guests.claimKeys(workspaceId, id, matchKeysOf(input), tx);
      await deps.outbox.add(tx, [guestEvent(saved, 'created', now)]);
      return saved;
    });
    deps.outbox.flushSoon();
    return created;
  } catch (err) {
    // A concurrent request with the same key committed first: its profile is this one's answer.
    if (err instanceof DuplicateKeyError && 'idempotencyKey' in err.keyPattern) {
      const first = await deps.guests.byIdempotencyKey(workspaceId, idempotencyKey, new Date());
      if (first) return first;
    }
    throw err;
  }
}

/**
 * Changes only the fields sent, against the profile as it is when the change commits: a
 * change committed meanwhile makes this one re-read and re-decide, so concurrent PATCHes of
 * different fields all survive; with `expectedVersion` (If-Match) it is 412 instead. A
 * PMS-linked profile is changed in its PMS first, under the profile's write lease, so the
 * PMS receives its changes in the order they are stored here. A key already applied (kept in
 * applied_requests with the change) answers the profile as it is.
 */
export function updateGuest(
  deps: GuestDeps,
  workspaceId: string,
  id: string,
  input: UpdateGuestInput,
  expectedVersion = 0,
  key: RequestKey | null = null,
): Promise<GuestRecord> {
  return deps.applied.once(
    key,
    () => updateOnce(deps, { workspaceId, id, input, expectedVersion, key }),
    (done) => deps.guests.get(workspaceId, done),
  );
}

/** One PATCH of a guest profile, as updateGuest was given it. */
interface GuestUpdate {
  workspaceId: string;
  id: string;
  input: UpdateGuestInput;
  expectedVersion: number;
  key: RequestKey | null;
}

async function updateOnce(deps: GuestDeps, update: GuestUpdate): Promise<GuestRecord> {
  const { workspaceId, id, input } = update;
  const first = await getGuest(deps, workspaceId, id);
  const problems = updateGuestProblems(input);
  if (Object.keys(problems).length) throw validationFailed(problems);
  if (first.provider) assertSupported(first.provider, 'guest.write');
  const lease = first.provider ? await acquireLease(deps.guests.guests, { workspaceId, _id: id }) : null;
  if (first.provider && !lease) throw notFound('guest', id);
  try {
    return await applyUpdate(deps, update, lease, first);
  } catch (err) {
    if (lease) await releaseLease(deps.guests.guests, { workspaceId, _id: id }, lease).catch(() => undefined);
    throw err;
  }
}

async function applyUpdate(deps: GuestDeps, update: GuestUpdate, lease: Lease | null, firstRead: GuestRecord): Promise<GuestRecord> {
  const { workspaceId, id, input, expectedVersion, key } = update;
  const idempotencyKey = key?.key ?? '';
  for (let attempt = 1; ; attempt++) {
    // Under a lease the read comes after taking it: the relay must start from what is stored.
    const current = attempt === 1 && !lease ? firstRead : await deps.guests.get(workspaceId, id);
    // Under the lease: a concurrent request with the same key that committed meanwhile is this
    // one's outcome, and its change must not reach the PMS a second time.
    if (lease && key && (await deps.applied.lookup(key)) !== null) {
      await releaseLease(deps.guests.guests, { workspaceId, _id: id }, lease);
      return current;
    }
    if (expectedVersion && current.version !== expectedVersion) throw preconditionFailed('Guest', id, expectedVersion, current.version);
    const next: GuestRecord = {
      ...current,
      firstName: input.firstName?.trim() ?? current.firstName,
      lastName: input.lastName?.trim() ?? current.lastName,
      language: input.language ?? current.language,
      updatedAt: new Date(),
    };
    if (current.provider) {
      await deps.pms.relay({
        workspaceId,
        provider: current.provider,
        operation: 'guest.write',
        listingExternalId: '',
        entityExternalId: current.externalId,
        payload: { firstName: next.firstName, lastName: next.lastName, language: next.language },
        idempotencyKey: idempotencyKey ? `${workspaceId}:${idempotencyKey}` : `${id}:v${current.version}`,
      });
    }
    // Documents written before versions existed have no field: they are version 0.
    const guard = { version: current.version === 0 ? { $in: [0, null] } : current.version, ...(lease?.held ?? {}) };
    const saved = await deps.store.transaction(async (tx) => {
      const out = await deps.guests.saveIf(next, guard, tx, undefined, lease?.release ?? {});
      if (out) {
        await deps.applied.remember(key, out.id, tx);
        await deps.outbox.add(tx, [guestEvent(out, 'updated', next.updatedAt)]);
      }
      return out;
    });
    if (saved) {
      deps.outbox.flushSoon();
      return saved;
    }
    if (expectedVersion) {
      const latest = await deps.guests.get(workspaceId, id);
      throw preconditionFailed('Guest', id, expectedVersion, latest.version);
    }
    if (attempt >= UPDATE_ATTEMPTS) {
      throw new AppError('conflict', `Guest '${id}' is being changed by many requests at once; nothing was changed by this one.`, {}, 'Retry the request.');
    }
  }
}
