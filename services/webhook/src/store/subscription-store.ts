// Queries on subscriptions, written once as Mongo documents for both engines.
import { AppError, notFound } from '@vrp/platform/errors';
import { DuplicateKeyError, type Collection, type DocumentStore, type Tx } from '@vrp/platform/store';
import { findPage, type PageWindow } from '@vrp/platform/paging';
import { SUCCESS_RECORD_WINDOW_MS, type SubscriptionRecord, type SubscriptionView } from '../domain/subscription';
import { subscriptionSchema } from './schemas';

type SubscriptionDoc = Omit<SubscriptionRecord, 'id'> & { _id: string; [field: string]: unknown };
type SubscriptionViewDoc = Omit<SubscriptionView, 'id'> & { _id: string; [field: string]: unknown };

/** Reads for the API leave the secrets in the database: they cannot leak through a later mapper. */
const WITHOUT_SECRETS = { secret: 0, previousSecret: 0 } as const;
const ORDER = { createdAt: 1, _id: 1 } as const;

const toView = ({ _id, secret: _secret, previousSecret: _previous, ...rest }: SubscriptionViewDoc): SubscriptionView => ({
  id: _id,
  ...rest,
  description: rest.description ?? '',
  mode: rest.mode ?? 'test',
  disabledReason: rest.disabledReason ?? null,
  disabledAt: rest.disabledAt ?? null,
  previousSecretExpiresAt: rest.previousSecretExpiresAt ?? null,
  lastSuccessAt: rest.lastSuccessAt ?? null,
  updatedAt: rest.updatedAt ?? rest.createdAt,
});

const toRecord = (doc: SubscriptionDoc): SubscriptionRecord => ({ ...toView(doc), secret: doc.secret, previousSecret: doc.previousSecret ?? null });

export type SubscriptionPatch = Partial<
  Pick<
    SubscriptionRecord,
    | 'url'
    | 'description'
    | 'eventTypes'
    | 'enabled'
    | 'disabledReason'
    | 'disabledAt'
    | 'secret'
    | 'previousSecret'
    | 'previousSecretExpiresAt'
    | 'lastSuccessAt'
    | 'updatedAt'
  >
>;

export class SubscriptionStore {
  readonly subscriptions: Collection<SubscriptionDoc>;

  constructor(readonly store: DocumentStore) {
    this.subscriptions = store.collection<SubscriptionDoc>({ name: 'subscriptions', schema: subscriptionSchema });
  }

  async page(workspaceId: string, window: PageWindow): Promise<{ subscriptions: SubscriptionView[]; total: number }> {
    const { docs, total } = await findPage(this.subscriptions, { workspaceId }, ORDER, window);
    return { subscriptions: docs.map(toView), total };
  }

  /** One subscription of the workspace; another workspace's id is not_found. */
  async get(workspaceId: string, id: string, tx?: Tx): Promise<SubscriptionView> {
    const doc = await this.subscriptions.findOne({ _id: id, workspaceId }, { projection: WITHOUT_SECRETS, tx });
    if (!doc) throw notFound('webhook subscription', id);
    return toView(doc);
  }

  /** With its secrets: only the delivery path signs with them. */
  async getForDelivery(id: string): Promise<SubscriptionRecord | null> {
    const doc = await this.subscriptions.findOne({ _id: id });
    return doc ? toRecord(doc) : null;
  }

  /** The current secret (to rotate it); another workspace's id is not_found. */
  async secretOf(workspaceId: string, id: string, tx?: Tx): Promise<string> {
    const doc = await this.subscriptions.findOne({ _id: id, workspaceId }, { tx });
    if (!doc) throw notFound('webhook subscription', id);
    return doc.secret;
  }

  /**
   * The enabled subscriptions of a workspace, as the intake fans every event out to them: their
   * ids and event types only. Internal, not an API read. A plain inclusion projection, which both
   * engines serve without copying the rest (reading and mapping each subscription whole
   * would cost twice per reservation write).
   */
  async enabledOf(workspaceId: string, tx?: Tx): Promise<Array<Pick<SubscriptionView, 'id' | 'eventTypes'>>> {
    const docs = await this.subscriptions.find({ workspaceId, enabled: true }, { sort: ORDER, projection: { eventTypes: 1 }, tx });
    return docs.map((d) => ({ id: d._id, eventTypes: d.eventTypes ?? [] }));
  }

  async insert(subscription: SubscriptionRecord, tx?: Tx): Promise<SubscriptionView> {
    const { id, ...rest } = subscription;
    try {
      return toView(await this.subscriptions.insertOne({ _id: id, ...rest }, { tx }));
    } catch (err) {
      // A raw DuplicateKeyError would reach the gRPC layer as internal_error.
      if (err instanceof DuplicateKeyError) throw new AppError('conflict', `A subscription with id '${id}' already exists.`);
      throw err;
    }
  }

  async update(workspaceId: string, id: string, patch: SubscriptionPatch, tx?: Tx): Promise<SubscriptionView> {
    const doc = await this.subscriptions.findOneAndUpdate({ _id: id, workspaceId }, { $set: patch }, { tx });
    if (!doc) throw notFound('webhook subscription', id);
    return toView(doc);
  }

  /**
   * Records an acknowledged delivery (keeps the endpoint from being disabled): only when the stored
   * success is older than SUCCESS_RECORD_WINDOW_MS before `at`, or absent. Otherwise the filter
   * matches nothing and nothing is written (most acknowledgements under load). True when written.
   */
  async markSuccess(id: string, at: Date): Promise<boolean> {
    const stale = new Date(at.getTime() - SUCCESS_RECORD_WINDOW_MS);
    const res = await this.subscriptions.updateOne(
      { _id: id, $or: [{ lastSuccessAt: null }, { lastSuccessAt: { $lt: stale } }] },
      { $set: { lastSuccessAt: at } },
    );
    return res.modifiedCount > 0;
  }

  /** Disables an endpoint that fails persistently, unless it was changed meanwhile. */
  async disable(id: string, reason: { disabledReason: string; disabledAt: Date }): Promise<boolean> {
    const res = await this.subscriptions.updateOne({ _id: id, enabled: true }, { $set: { enabled: false, ...reason, updatedAt: reason.disabledAt } });
    return res.modifiedCount > 0;
  }

  async remove(workspaceId: string, id: string, tx?: Tx): Promise<void> {
    const { deletedCount } = await this.subscriptions.deleteOne({ _id: id, workspaceId }, { tx });
    if (!deletedCount) throw notFound('webhook subscription', id);
  }
}
