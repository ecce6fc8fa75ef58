// The one PMS relay client against a pms-adapter gRPC server (real gRPC): what it sends, the
// PMS's id it answers, and its one error policy (the pms-adapter's answer passes unchanged).
import { pms } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import type { RunningService } from '@vrp/platform/service';
import { errorOf, startFakeService } from '@vrp/testkit';
import { connectPmsRelay, type PmsRelay, type RelayRequest } from '../src';

describe('PMS relay client', () => {
  let adapter: RunningService;
  let relay: PmsRelay & { close(): void };
  const received: pms.RelayWriteRequest[] = [];
  let answer: (req: pms.RelayWriteRequest) => Promise<pms.RelayWriteResponse>;

  beforeAll(async () => {
    adapter = await startFakeService('fake-pms-adapter', pms.PmsAdapterServiceService, {
      async relayWrite(req: pms.RelayWriteRequest) {
        received.push(req);
        return answer(req);
      },
    });
    relay = connectPmsRelay(`127.0.0.1:${adapter.grpcPort}`);
  });

  afterAll(async () => {
    relay.close();
    await adapter.stop();
  });

  beforeEach(() => {
    received.length = 0;
  });

  const write = (over: Partial<RelayRequest> = {}): RelayRequest => ({
    workspaceId: 'ws_1',
    provider: 'PMS-B',
    operation: 'reservation.create',
    listingExternalId: 'b1',
    entityExternalId: '',
    payload: { checkIn: '2030-01-01', guest: { firstName: 'Ana' } },
    idempotencyKey: 'ws_1:key-1',
    ...over,
  });

  it('sends the write with its payload as JSON and answers the PMS id of what was created', async () => {
    answer = async () => ({ entityExternalId: 'pms-res-9', resultJson: '{}' });
    expect(await relay.relay(write())).toEqual({ entityExternalId: 'pms-res-9' });
    expect(received).toHaveLength(1);
    // Every field of the write as given (workspace, provider, operation, PMS ids, idempotency key); the payload as JSON.
    const { payload, ...fields } = write();
    expect(received[0]).toMatchObject(fields);
    expect(JSON.parse(received[0]!.payloadJson)).toEqual(payload);
  });

  it('keeps the given PMS id when the PMS names none (an update)', async () => {
    answer = async () => ({ entityExternalId: '', resultJson: '{}' });
    expect(await relay.relay(write({ operation: 'reservation.change_dates', entityExternalId: 'pms-res-9' }))).toEqual({ entityExternalId: 'pms-res-9' });
  });

  it.each([
    [
      'a PMS that refused or could not be reached',
      new AppError('pms_unavailable', 'PMS-B did not accept the write (409): taken. Nothing was changed here.'),
      502,
    ],
    ['a PMS refusing a write the matrix allowed', new AppError('pms_write_unsupported', 'PMS-B refused the write: no', { provider: 'PMS-B' }), 422],
    ['a PMS whose breaker is open in the pms-adapter', new AppError('service_unavailable', 'PMS-B is unavailable', { retryAfterSeconds: 7 }), 503],
  ])('passes the pms-adapter answer unchanged: %s', async (_what, failure, status) => {
    answer = async () => {
      throw failure;
    };
    const err = await errorOf(relay.relay(write()));
    expect([err.code, err.httpStatus, err.message]).toEqual([failure.code, status, failure.message]);
    expect(err.details).toMatchObject(failure.details);
  });

  it('a pms-adapter that cannot be reached is 503 service_unavailable, nothing relayed', async () => {
    const nowhere = connectPmsRelay('127.0.0.1:1');
    try {
      const err = await errorOf(nowhere.relay(write()));
      expect([err.code, err.httpStatus]).toEqual(['service_unavailable', 503]);
    } finally {
      nowhere.close();
    }
    expect(received).toEqual([]);
  });
});
