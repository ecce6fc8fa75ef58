// Reservation requests and inquiries: reads (404 before 403, collections leave out inactive
// listings), the host's answer to a request and pre-approval of an inquiry. A write the PMS
// cannot perform is refused from the capability matrix before anything is sent (docs/api.md,
// "Writes that a PMS cannot perform"); one it can is relayed first, then the pending request moves with its event in one transaction.
import { MAX_REQUEST_NOTE_LENGTH } from '@vrp/api-model';
import { AppError, validationFailed } from '@vrp/platform/errors';
import type { PageWindow } from '@vrp/platform/paging';
import type { RequestKey } from '@vrp/platform/applied-requests';
import type { PmsWrite } from '@vrp/pms-matrix';
import {
  answerProblem,
  assertPmsCan,
  preApprovalWrites,
  preApproveProblem,
  REQUEST_STATUSES,
  statusAfter,
  type Decision,
  type RequestRecord,
} from '../domain/messaging';
import { requestEvent } from '../publishers/events';
import { listingScope, type GuestDeps } from './deps';

const DECISIONS: readonly Decision[] = ['accept', 'decline'];

/** The host's note on an answer or a pre-approval (the API's `message`). */
function assertNote(note: string): void {
  if (note.length > MAX_REQUEST_NOTE_LENGTH) throw validationFailed({ message: `must be at most ${MAX_REQUEST_NOTE_LENGTH} characters` });
}

export async function listRequests(deps: GuestDeps, workspaceId: string, f: { listingId: string; status: string; kind: string }, window: PageWindow) {
  if (f.status && !(REQUEST_STATUSES as readonly string[]).includes(f.status))
    throw validationFailed({ status: `must be one of ${REQUEST_STATUSES.join(', ')}` });
  if (f.kind && f.kind !== 'request' && f.kind !== 'inquiry') throw validationFailed({ kind: 'must be request or inquiry' });
  const extra: Record<string, unknown> = {};
  if (f.status) extra.status = f.status;
  if (f.kind) extra.kind = f.kind;
  return deps.messaging.requestPage(await listingScope(deps.access, workspaceId, f.listingId, extra), window);
}

export async function getRequest(deps: GuestDeps, workspaceId: string, id: string): Promise<RequestRecord> {
  const r = await deps.messaging.request(workspaceId, id);
  deps.access.assertActive(workspaceId, r.listingId);
  return r;
}

/** A key already applied answers the request as it is now (409 conflict only without a key). */
export function answerRequest(
  deps: GuestDeps,
  workspaceId: string,
  id: string,
  decision: string,
  note: string,
  key: RequestKey | null = null,
): Promise<RequestRecord> {
  if (!(DECISIONS as readonly string[]).includes(decision)) throw validationFailed({ decision: 'must be accept or decline' });
  assertNote(note);
  return deps.applied.once(
    key,
    async () => {
      const r = await getRequest(deps, workspaceId, id);
      const problem = answerProblem(r);
      if (problem) throw new AppError('conflict', problem);
      assertPmsCan(r.provider, ['request.answer']);
      await relayRequestWrite(deps, r, 'request.answer', { decision, message: note });
      return transition(deps, r, { status: statusAfter(decision as Decision) }, key);
    },
    (requestId) => deps.messaging.request(workspaceId, requestId),
  );
}

export function preApproveInquiry(
  deps: GuestDeps,
  workspaceId: string,
  id: string,
  blockInstantBooking: boolean,
  note: string,
  key: RequestKey | null = null,
): Promise<RequestRecord> {
  assertNote(note);
  return deps.applied.once(
    key,
    async () => {
      const r = await getRequest(deps, workspaceId, id);
      const problem = preApproveProblem(r);
      if (problem) throw new AppError('conflict', problem);
      assertPmsCan(r.provider, preApprovalWrites(blockInstantBooking));
      await relayRequestWrite(deps, r, 'inquiry.pre_approve', { blockInstantBooking, message: note });
      return transition(deps, r, { status: 'pre_approved', blockInstantBooking }, key);
    },
    (requestId) => deps.messaging.request(workspaceId, requestId),
  );
}

async function relayRequestWrite(deps: GuestDeps, r: RequestRecord, operation: PmsWrite, payload: Record<string, unknown>): Promise<void> {
  if (!r.provider) return;
  const listing = await deps.pms.listing(r.workspaceId, r.listingId);
  await deps.pms.relay({
    workspaceId: r.workspaceId,
    provider: r.provider,
    operation,
    listingExternalId: listing.externalId,
    entityExternalId: r.externalId,
    payload,
    idempotencyKey: `${r.id}:${operation}`,
  });
}

async function transition(deps: GuestDeps, r: RequestRecord, set: Partial<RequestRecord>, key: RequestKey | null): Promise<RequestRecord> {
  const out = await deps.store.transaction(async (tx) => {
    const moved = await deps.messaging.transitionRequest(r, 'pending', set, tx);
    if (moved) {
      await deps.applied.remember(key, moved.id, tx);
      await deps.outbox.add(tx, [requestEvent(moved, 'updated', new Date())]);
    }
    return moved;
  });
  if (!out) throw new AppError('conflict', 'The request was answered meanwhile; read it again.');
  deps.outbox.flushSoon();
  return out;
}
