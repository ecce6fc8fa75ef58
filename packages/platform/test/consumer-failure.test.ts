// Pure rules: which failures a consumer retries in place and which it dead-letters at once.
import { AppError } from '../src/errors/app-error';
import { DocumentValidationError, DuplicateKeyError } from '../src/store/port';
import { classifyFailure, PermanentError, TransientError } from '../src/consumer/failure';
import { backoffDelay } from '../src/consumer/runner';

describe('classifyFailure', () => {
  it('treats explicit permanent errors, invalid documents and final AppErrors as permanent', () => {
    expect(classifyFailure(new PermanentError('listing_deleted', 'gone'))).toEqual({ class: 'permanent', code: 'listing_deleted', message: 'gone' });
    expect(classifyFailure(new DocumentValidationError('things', { name: 'required' }))).toMatchObject({ class: 'permanent', code: 'validation_failed' });
    for (const code of ['validation_failed', 'not_found', 'listing_inactive', 'pms_write_unsupported'] as const) {
      expect(classifyFailure(new AppError(code))).toMatchObject({ class: 'permanent', code });
    }
  });

  it('treats unavailable, timed-out and conflicting work as transient, by AppError code, flag or label', () => {
    for (const code of ['service_unavailable', 'upstream_timeout', 'rate_limited', 'pms_unavailable', 'internal_error', 'conflict'] as const) {
      expect(classifyFailure(new AppError(code))).toMatchObject({ class: 'transient', code });
    }
    expect(classifyFailure(new TransientError('listing_not_imported', 'later'))).toMatchObject({ class: 'transient', code: 'listing_not_imported' });
    // The store's typed errors (isTransient) and the MongoDB driver's labels.
    expect(classifyFailure(Object.assign(new Error('conflict'), { name: 'WriteConflictError', code: 'write_conflict', isTransient: true }))).toMatchObject({
      class: 'transient',
      code: 'write_conflict',
    });
    expect(classifyFailure(Object.assign(new Error('no'), { isTransient: () => false }))).toMatchObject({ class: 'permanent' });
    expect(classifyFailure(Object.assign(new Error('txn'), { name: 'MongoServerError', code: 112, errorLabels: ['TransientTransactionError'] }))).toMatchObject(
      { class: 'transient', code: 'MongoServerError' },
    );
  });

  it('counts unknown errors and non-errors as transient (retrying costs a delay, dead-lettering could lose a good message)', () => {
    expect(classifyFailure(new Error('boom'))).toMatchObject({ class: 'transient', code: 'Error' });
    expect(classifyFailure(Object.assign(new Error('down'), { name: 'StoreUnavailableError', code: 'store_unavailable' }))).toMatchObject({
      class: 'transient',
      code: 'store_unavailable',
    });
    expect(classifyFailure(new DuplicateKeyError('things', { a: 1 }))).toMatchObject({ class: 'transient' });
    expect(classifyFailure('a string')).toEqual({ class: 'transient', code: 'unknown_error', message: 'a string' });
  });
});

describe('backoffDelay', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1000 };
  it('doubles per attempt up to the cap, jittered between half and all of the step', () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, policy, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([1, 2, 3].map((a) => backoffDelay(a, policy, () => 0))).toEqual([50, 100, 200]);
  });
});
