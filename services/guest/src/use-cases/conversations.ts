// Conversations and their messages. Reads: 404 before 403, collections leave out inactive
// listings. Sending a message a PMS must deliver: refused from the capability matrix before
// anything is sent (docs/api.md, "Writes that a PMS cannot perform"), else relayed through the
// pms-adapter, then stored with its event in one transaction.
import { ATTACHMENT_URL_PATTERN, MAX_ATTACHMENT_URL_LENGTH, MAX_ATTACHMENTS, MAX_MESSAGE_LENGTH } from '@vrp/api-model';
import { newId } from '@vrp/platform/ids';
import { validationFailed } from '@vrp/platform/errors';
import type { PageWindow } from '@vrp/platform/paging';
import type { RequestKey } from '@vrp/platform/applied-requests';
import { assertPmsCan, messageWrites, type Attachment, type ConversationRecord, type MessageRecord } from '../domain/messaging';
import { messageEvent } from '../publishers/events';
import { listingScope, type GuestDeps } from './deps';

export interface SendMessageInput {
  body: string;
  attachments: Attachment[];
  idempotencyKey: string;
}

export async function listConversations(
  deps: GuestDeps,
  workspaceId: string,
  f: { listingId: string; reservationId: string; guestId: string },
  window: PageWindow,
) {
  const extra: Record<string, unknown> = {};
  if (f.reservationId) extra.reservationId = f.reservationId;
  if (f.guestId) extra.guestId = f.guestId;
  return deps.messaging.conversationPage(await listingScope(deps.access, workspaceId, f.listingId, extra), window);
}

export async function getConversation(deps: GuestDeps, workspaceId: string, id: string): Promise<ConversationRecord> {
  const c = await deps.messaging.conversation(workspaceId, id);
  deps.access.assertActive(workspaceId, c.listingId);
  return c;
}

export async function listMessages(deps: GuestDeps, workspaceId: string, conversationId: string, window: PageWindow) {
  await getConversation(deps, workspaceId, conversationId);
  return deps.messaging.messagePage(workspaceId, conversationId, window);
}

/** A key already applied answers the message it sent; nothing is relayed or stored again. */
export function sendMessage(
  deps: GuestDeps,
  workspaceId: string,
  conversationId: string,
  input: SendMessageInput,
  key: RequestKey | null = null,
): Promise<MessageRecord> {
  return deps.applied.once(
    key,
    () => sendOnce(deps, workspaceId, conversationId, input, key),
    (messageId) => deps.messaging.message(workspaceId, messageId),
  );
}

async function sendOnce(deps: GuestDeps, workspaceId: string, conversationId: string, input: SendMessageInput, key: RequestKey | null): Promise<MessageRecord> {
  const c = await getConversation(deps, workspaceId, conversationId);
  const problems: Record<string, string> = {};
  if (!input.body.trim() && input.attachments.length === 0) problems.body = 'is required (or send at least one attachment)';
  if (input.body.length > MAX_MESSAGE_LENGTH) problems.body = `must be at most ${MAX_MESSAGE_LENGTH} characters`;
  if (input.attachments.length > MAX_ATTACHMENTS) problems.attachments = `must contain at most ${MAX_ATTACHMENTS} attachments`;
  input.attachments.forEach((a, i) => {
    if (!ATTACHMENT_URL_PATTERN.test(a.url)) problems[`attachments.${i}.url`] = 'must be an http(s) URL';
    else if (a.url.length > MAX_ATTACHMENT_URL_LENGTH) problems[`attachments.${i}.url`] = `must be at most ${MAX_ATTACHMENT_URL_LENGTH} characters`;
  });
  if (Object.keys(problems).length) throw validationFailed(problems);

  const listing = await deps.pms.listing(workspaceId, c.listingId);
  assertPmsCan(listing.provider, messageWrites(input.attachments.length));
  const id = newId('msg');
  let externalId = '';
  if (listing.provider) {
    ({ entityExternalId: externalId } = await deps.pms.relay({
      workspaceId,
      provider: listing.provider,
      operation: 'message.send',
      listingExternalId: listing.externalId,
      entityExternalId: c.externalId,
      payload: {
        conversationId: c.id,
        conversationExternalId: c.externalId,
        reservationId: c.reservationId,
        body: input.body,
        attachments: input.attachments,
      },
      idempotencyKey: input.idempotencyKey || id,
    }));
  }
  const now = new Date();
  const message: MessageRecord = {
    id,
    workspaceId,
    conversationId: c.id,
    listingId: c.listingId,
    direction: 'outbound',
    body: input.body,
    attachments: input.attachments,
    sentAt: now,
    provider: listing.provider,
    externalId,
  };
  const saved = await deps.store.transaction(async (tx) => {
    const stored = await deps.messaging.insertMessage(message, tx);
    await deps.applied.remember(key, stored.id, tx);
    const updated = await deps.messaging.noteMessage(c, now, tx);
    await deps.outbox.add(tx, [messageEvent(stored, updated, now)]);
    return stored;
  });
  deps.outbox.flushSoon();
  return saved;
}
