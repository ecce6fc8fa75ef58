// Subscriptions of the public webhook API: create, read, update, delete, rotate the secret.
// Tenant-scoped throughout: another workspace's id is not_found. The delivery log and replay
// are in deliveries.ts.
import { validationFailed } from '@vrp/platform/errors';
import { type PageWindow } from '@vrp/platform/paging';
import { type RequestKey } from '@vrp/platform/applied-requests';
import { normalizeEventTypes } from '../domain/event-types';
import { MAX_DESCRIPTION_LENGTH, newSubscription, rotation, rotationGrace, type SubscriptionView } from '../domain/subscription';
import type { KeyMode } from '../domain/target';
import { urlRefusal } from '../ports/address-guard';
import type { SubscriptionPatch } from '../store/subscription-store';
import type { WebhookDeps } from './deps';

export type SubscriptionsDeps = Pick<WebhookDeps, 'store' | 'subscriptions' | 'deliveries' | 'clock' | 'resolve' | 'policyOf' | 'applied'>;

export interface SubscriptionInput {
  url?: string | undefined;
  description?: string | undefined;
  eventTypes?: string[] | undefined;
  enabled?: boolean | undefined;
}

/**
 * A key already applied answers the subscription it created (as it is now, with its current
 * secret: the one that signs its deliveries), and no second subscription is created.
 */
export function createSubscription(
  deps: SubscriptionsDeps,
  workspaceId: string,
  mode: KeyMode,
  input: SubscriptionInput & { url: string },
  key: RequestKey | null = null,
): Promise<{ subscription: SubscriptionView; secret: string }> {
  return deps.applied.once(
    key,
    () => createOnce(deps, workspaceId, mode, input, key),
    (id) => withSecret(deps, workspaceId, id),
  );
}

async function withSecret(deps: SubscriptionsDeps, workspaceId: string, id: string): Promise<{ subscription: SubscriptionView; secret: string }> {
  return { subscription: await deps.subscriptions.get(workspaceId, id), secret: await deps.subscriptions.secretOf(workspaceId, id) };
}

async function createOnce(
  deps: SubscriptionsDeps,
  workspaceId: string,
  mode: KeyMode,
  input: SubscriptionInput & { url: string },
  key: RequestKey | null,
): Promise<{ subscription: SubscriptionView; secret: string }> {
  const fields = await inputProblems(deps, mode, input);
  const eventTypes = normalizeEventTypes(input.eventTypes ?? []).types;
  if (Object.keys(fields).length) throw validationFailed(fields);
  const record = newSubscription(
    workspaceId,
    mode,
    { url: input.url, description: input.description ?? '', eventTypes, enabled: input.enabled ?? true },
    deps.clock.now(),
  );
  const subscription = await deps.store.transaction(async (tx) => {
    const inserted = await deps.subscriptions.insert(record, tx);
    await deps.applied.remember(key, inserted.id, tx);
    return inserted;
  });
  return { subscription, secret: record.secret };
}

/** A key already applied answers the subscription as it is; a later change is not overwritten. */
export function updateSubscription(
  deps: SubscriptionsDeps,
  workspaceId: string,
  id: string,
  requestMode: KeyMode,
  input: SubscriptionInput,
  key: RequestKey | null = null,
): Promise<SubscriptionView> {
  return deps.applied.once(
    key,
    () => updateOnce(deps, workspaceId, id, requestMode, input, key),
    (done) => deps.subscriptions.get(workspaceId, done),
  );
}

async function updateOnce(
  deps: SubscriptionsDeps,
  workspaceId: string,
  id: string,
  requestMode: KeyMode,
  input: SubscriptionInput,
  key: RequestKey | null,
): Promise<SubscriptionView> {
  const current = await deps.subscriptions.get(workspaceId, id);
  // A live subscription stays under live rules whatever key edits it; a live key applies them too.
  const mode: KeyMode = current.mode === 'live' || requestMode === 'live' ? 'live' : 'test';
  const fields = await inputProblems(deps, mode, input);
  if (Object.keys(fields).length) throw validationFailed(fields);
  const patch: SubscriptionPatch = { updatedAt: deps.clock.now() };
  if (input.url !== undefined) patch.url = input.url;
  if (input.description !== undefined) patch.description = input.description;
  if (input.eventTypes !== undefined) patch.eventTypes = normalizeEventTypes(input.eventTypes).types;
  if (input.enabled !== undefined) {
    patch.enabled = input.enabled;
    // Re-enabling starts afresh: the reason is cleared and failures before now no longer count.
    if (input.enabled) Object.assign(patch, { disabledReason: null, disabledAt: null, lastSuccessAt: null });
  }
  return deps.store.transaction(async (tx) => {
    const updated = await deps.subscriptions.update(workspaceId, id, patch, tx);
    await deps.applied.remember(key, updated.id, tx);
    return updated;
  });
}

export function getSubscription(deps: SubscriptionsDeps, workspaceId: string, id: string): Promise<SubscriptionView> {
  return deps.subscriptions.get(workspaceId, id);
}

export async function subscriptionPage(deps: SubscriptionsDeps, workspaceId: string, window: PageWindow) {
  return deps.subscriptions.page(workspaceId, window);
}

/** Deletes the subscription; its pending deliveries are dropped, its log stays readable by nobody. */
export async function deleteSubscription(deps: SubscriptionsDeps, workspaceId: string, id: string): Promise<void> {
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    await deps.subscriptions.remove(workspaceId, id, tx);
    await deps.deliveries.dropPendingOfSubscription(id, 'subscription_deleted', now, tx);
  });
}

/** A key already applied answers the subscription and its current secret; it is not rotated twice. */
export async function rotateSubscriptionSecret(
  deps: SubscriptionsDeps,
  workspaceId: string,
  id: string,
  graceSeconds: number,
  key: RequestKey | null = null,
): Promise<{ subscription: SubscriptionView; secret: string }> {
  const grace = rotationGrace(graceSeconds);
  if ('error' in grace) throw validationFailed({ gracePeriodSeconds: grace.error });
  return deps.applied.once(
    key,
    () => {
      const now = deps.clock.now();
      return deps.store.transaction(async (tx) => {
        const next = rotation({ secret: await deps.subscriptions.secretOf(workspaceId, id, tx) }, now, grace.seconds);
        const subscription = await deps.subscriptions.update(workspaceId, id, { ...next, updatedAt: now }, tx);
        await deps.applied.remember(key, subscription.id, tx);
        return { subscription, secret: next.secret };
      });
    },
    (done) => withSecret(deps, workspaceId, done),
  );
}

/** Field errors of a subscription's input (the URL is resolved: no SSRF through it). */
async function inputProblems(deps: SubscriptionsDeps, mode: KeyMode, input: SubscriptionInput): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  if (input.url !== undefined) {
    const refusal = await urlRefusal(input.url, deps.policyOf(mode), deps.resolve);
    if (refusal) fields.url = refusal;
  }
  if (input.eventTypes !== undefined) Object.assign(fields, normalizeEventTypes(input.eventTypes).errors);
  if (input.description !== undefined && input.description.length > MAX_DESCRIPTION_LENGTH)
    fields.description = `must be at most ${MAX_DESCRIPTION_LENGTH} characters`;
  return fields;
}
