// Collections of the gateway's own database: workspaces, API keys (hashes only) and
// idempotency records. Both store engines cast, validate and index through these schemas.
import { Schema } from 'mongoose';
import { API_KEY_MODES } from '../domain/api-key';

export const workspaceSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true, trim: true, minlength: 1 },
    /** Lower-cased name: the bootstrap helper finds "its" workspace by name. */
    nameKey: { type: String, required: true },
    activeListingLimit: { type: Number, required: true, min: 0 },
    /** Rate and concurrency limits set by an operator (domain/rate-limits.ts); absent = default. */
    rateLimits: {
      keyRequestsPerSecond: { type: Number, min: 0 },
      keyBurst: { type: Number, min: 0 },
      workspaceRequestsPerSecond: { type: Number, min: 0 },
      workspaceBurst: { type: Number, min: 0 },
      workspaceConcurrency: { type: Number, min: 0 },
    },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
workspaceSchema.index({ nameKey: 1, createdAt: 1 });

export const apiKeySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    mode: { type: String, enum: API_KEY_MODES, required: true },
    name: { type: String, default: null },
    prefix: { type: String, required: true },
    /** HMAC-SHA256 of the key under the pepper: the only form in which a key is kept. */
    hash: { type: String, required: true },
    createdAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
// Authentication is one equality lookup by hash; unique so one key can never name two records.
apiKeySchema.index({ hash: 1 }, { unique: true });
apiKeySchema.index({ workspaceId: 1, createdAt: 1, _id: 1 });

export const idempotencyRecordSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** Workspace id, or "admin" for the operator API: keys never collide across tenants. */
    scope: { type: String, required: true },
    key: { type: String, required: true },
    fingerprint: { type: String, required: true },
    state: { type: String, enum: ['pending', 'completed'], required: true },
    /** The gateway process whose request holds a pending record (a random id per process). */
    holder: { type: String, default: '' },
    /** Until then a pending record belongs to its holder, which renews it while its request runs. */
    lockedUntil: { type: Date, required: true },
    status: { type: Number, default: null },
    /**
     * The response body as JSON text: stored opaque because response objects may hold keys
     * MongoDB treats specially (dots, `$`), and it is only ever replayed verbatim.
     */
    responseJson: { type: String, default: null },
    /** The response's ETag header (versioned records), replayed with the body. */
    etag: { type: String, default: null },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
idempotencyRecordSchema.index({ scope: 1, key: 1 }, { unique: true });
// MongoDB removes records once expiresAt passes; queries also ignore expired ones, because the
// TTL monitor runs only once a minute (and the embedded engine has none).
idempotencyRecordSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
