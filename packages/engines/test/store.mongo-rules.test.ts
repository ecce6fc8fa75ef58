// The MongoDB engine's decisions that need no server: readiness from a `hello` reply, and how
// driver errors are classified. (The engine itself runs in store.contract.test.ts when a
// MongoDB is reachable.)
import mongoose from 'mongoose';
import { mapError, readinessFromHello } from '../src/store/mongo';
import {
  DocumentValidationError,
  DuplicateKeyError,
  isTransientStoreError,
  StoreUnavailableError,
  TransactionAbortedError,
  WriteConflictError,
} from '@vrp/platform/store';
import { storeFailureToAppError } from '@vrp/platform/errors';

const driver = mongoose.mongo;

describe('mongo readiness from hello', () => {
  it('is ready on the writable primary of a replica set', () => {
    expect(readinessFromHello({ setName: 'rs0', isWritablePrimary: true })).toEqual({ ready: true });
    expect(readinessFromHello({ setName: 'rs0', ismaster: true })).toEqual({ ready: true }); // servers older than 4.4.2
  });

  it('is ready on a mongos (sharded cluster: transactions work)', () => {
    expect(readinessFromHello({ msg: 'isdbgrid', isWritablePrimary: true })).toEqual({ ready: true });
  });

  it('is not ready on a standalone server: every transaction would fail', () => {
    const verdict = readinessFromHello({ isWritablePrimary: true });
    expect(verdict.ready).toBe(false);
    expect(verdict).toMatchObject({ reason: expect.stringContaining('replica set') });
    expect(readinessFromHello({ setName: '', isWritablePrimary: true }).ready).toBe(false);
  });

  it('is not ready on a secondary', () => {
    expect(readinessFromHello({ setName: 'rs0', isWritablePrimary: false, secondary: true } as never)).toMatchObject({
      ready: false,
      reason: expect.stringContaining('primary'),
    });
  });
});

describe('mongo error classification', () => {
  it('a WriteConflict or any TransientTransactionError is a transient WriteConflictError', () => {
    const conflict = mapError(
      new driver.MongoServerError({ code: 112, codeName: 'WriteConflict', errmsg: 'WriteConflict', errorLabels: ['TransientTransactionError'] }),
      'items',
    );
    expect(conflict).toBeInstanceOf(WriteConflictError);
    expect(isTransientStoreError(conflict)).toBe(true);
    const labelled = mapError(
      new driver.MongoServerError({ code: 251, codeName: 'NoSuchTransaction', errmsg: 'no such transaction', errorLabels: ['TransientTransactionError'] }),
      'items',
    );
    expect(labelled).toBeInstanceOf(WriteConflictError);
  });

  it('E11000 is a DuplicateKeyError with its key pattern, not transient', () => {
    const dup = mapError(new driver.MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error index: email_1', keyPattern: { email: 1 } }), 'items');
    expect(dup).toBeInstanceOf(DuplicateKeyError);
    expect((dup as DuplicateKeyError).keyPattern).toEqual({ email: 1 });
    expect(isTransientStoreError(dup)).toBe(false);
  });

  it('no server, a dead socket or an expired maxTimeMS is StoreUnavailableError', () => {
    const failures = [
      new driver.MongoServerSelectionError('Server selection timed out after 2000 ms', { type: 'Unknown', servers: new Map() } as never),
      new driver.MongoNetworkTimeoutError('connection timed out'),
      new driver.MongoNetworkError('connection reset'),
      new driver.MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' }),
    ];
    for (const failure of failures) expect(mapError(failure, 'items')).toBeInstanceOf(StoreUnavailableError);
  });

  it('errors of the caller pass through unchanged; port errors are kept', () => {
    const own = new Error('boom');
    expect(mapError(own, 'items')).toBe(own);
    const invalid = new DocumentValidationError('items', { name: 'required' });
    expect(mapError(invalid, 'items')).toBe(invalid);
  });
});

describe('store failures seen by callers', () => {
  it('unavailable, or contended past the retries: 503 service_unavailable with Retry-After', () => {
    for (const err of [
      new StoreUnavailableError('frozen'),
      new WriteConflictError('items', 'held'),
      new TransactionAbortedError(new StoreUnavailableError('frozen')),
    ]) {
      const appError = storeFailureToAppError(err);
      expect(appError?.code).toBe('service_unavailable');
      expect(appError?.httpStatus).toBe(503);
      expect(appError?.details.retryAfterSeconds).toBeGreaterThan(0);
    }
  });

  it('anything else is not a store outage (the caller maps it to internal_error)', () => {
    expect(storeFailureToAppError(new Error('bug'))).toBeNull();
    expect(storeFailureToAppError(new DuplicateKeyError('items', { _id: 1 }))).toBeNull();
    expect(storeFailureToAppError(new TransactionAbortedError(new DuplicateKeyError('items', { _id: 1 })))).toBeNull();
  });
});
