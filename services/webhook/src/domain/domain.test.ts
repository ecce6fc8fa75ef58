// Unit tests of the webhook service's pure rules.
import { afterAttempt } from './delivery';
import { normalizeEventTypes, subscribesTo } from './event-types';
import { MAX_ATTEMPTS, nextRetryAt, RETRY_DELAYS_SECONDS } from './retry';
import { sign, signatureHeader, verifySignature } from './signature';
import { newSubscription, persistentFailure, rotation, rotationGrace, signingSecrets, SUCCESS_RECORD_WINDOW_MS, successRecordDue } from './subscription';
import { addressRefusal, checkUrlShape, classifyAddress } from './target';

const T0 = new Date('2030-01-01T00:00:00Z');

describe('address classification (SSRF)', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['192.0.2.10', 'reserved'],
    ['192.0.0.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.31.196.1', 'as112'],
    ['192.175.48.1', 'as112'],
    ['192.52.193.1', 'amt'],
    ['240.0.0.1', 'reserved'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052'],
    ['64:ff9b::808:808', 'rfc6052'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['::ffff:0:a00:1', 'rfc6145'],
    ['2002:c000:0204::1', '6to4'],
    ['2001::1', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'deprecated-orchid'],
    ['2001:20::1', 'orchid2'],
    ['100::1', 'discard'],
    ['fec0::1', 'deprecated-site-local'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'segment-routing'],
    ['::1.2.3.4', 'reserved'],
    ['4000::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['2606:4700::1111', 'public'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it('allows loopback only in test mode and only when the deployment allows it', () => {
    expect(addressRefusal('127.0.0.1', { mode: 'test', allowLoopbackInTest: true })).toBeNull();
    expect(addressRefusal('127.0.0.1', { mode: 'test', allowLoopbackInTest: false })).toContain('loopback');
    expect(addressRefusal('127.0.0.1', { mode: 'live', allowLoopbackInTest: true })).toContain('loopback');
    expect(addressRefusal('10.0.0.1', { mode: 'test', allowLoopbackInTest: true })).toContain('private');
  });

  it('checks the URL shape per mode', () => {
    const live = { mode: 'live' as const, allowLoopbackInTest: true };
    const test = { mode: 'test' as const, allowLoopbackInTest: true };
    expect(checkUrlShape('http://example.com/x', live)).toEqual({ error: 'must use https in live mode' });
    expect(checkUrlShape('http://127.0.0.1:8080/x', test)).toMatchObject({ host: '127.0.0.1' });
    expect(checkUrlShape('https://[::1]/x', live)).toEqual({ error: expect.stringContaining('loopback') });
    expect(checkUrlShape('https://a:b@example.com', live)).toEqual({ error: 'must not contain credentials' });
    expect(checkUrlShape('example.com', live)).toEqual({ error: 'must be an absolute URL' });
    expect(checkUrlShape('gopher://example.com', test)).toEqual({ error: 'must use https' });
    expect(checkUrlShape(`https://example.com/${'a'.repeat(2048)}`, live)).toEqual({ error: 'must be at most 2048 characters' });
  });
});

describe('signatures', () => {
  const body = '{"id":"evt_1"}';
  it('signs timestamp + body and verifies within the tolerance only', () => {
    const header = signatureHeader(['whsec_a'], 1000, body);
    expect(header).toBe(`t=1000,v1=${sign('whsec_a', 1000, body)}`);
    expect(verifySignature({ header, secret: 'whsec_a', body, nowSeconds: 1300 })).toEqual({ ok: true });
    expect(verifySignature({ header, secret: 'whsec_a', body, nowSeconds: 1301 })).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(verifySignature({ header, secret: 'whsec_b', body, nowSeconds: 1000 })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verifySignature({ header: 'garbage', secret: 'whsec_a', body, nowSeconds: 1000 })).toEqual({ ok: false, reason: 'malformed' });
  });
  it('carries one signature per valid secret during a rotation', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1000, body);
    for (const secret of ['whsec_new', 'whsec_old']) expect(verifySignature({ header, secret, body, nowSeconds: 1000 }).ok).toBe(true);
  });
});

describe('secret rotation', () => {
  it('keeps the old secret signing until the grace period ends', () => {
    const next = rotation({ secret: 'whsec_old' }, T0, 60);
    expect(next.previousSecret).toBe('whsec_old');
    const s = { secret: next.secret, previousSecret: next.previousSecret, previousSecretExpiresAt: next.previousSecretExpiresAt };
    expect(signingSecrets(s, new Date(T0.getTime() + 59_000))).toEqual([next.secret, 'whsec_old']);
    expect(signingSecrets(s, new Date(T0.getTime() + 60_000))).toEqual([next.secret]);
  });
  it('defaults the grace to 24 h and bounds it', () => {
    expect(rotationGrace(0)).toEqual({ seconds: 86_400 });
    expect(rotationGrace(-5)).toHaveProperty('error');
    expect(rotationGrace(8 * 86_400)).toHaveProperty('error');
  });
});

describe('retry schedule', () => {
  it('spans about three days over 11 attempts', () => {
    expect(MAX_ATTEMPTS).toBe(11);
    const total = RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0);
    expect(total / 3600).toBeGreaterThan(70);
    expect(total / 3600).toBeLessThan(73);
  });
  it('applies ±20 % jitter', () => {
    expect(nextRetryAt(1, T0, () => 0)!.getTime() - T0.getTime()).toBe(24_000);
    expect(nextRetryAt(1, T0, () => 0.999999)!.getTime() - T0.getTime()).toBe(36_000);
    expect(nextRetryAt(10, T0, () => 0.5)!.getTime() - T0.getTime()).toBe(86_400_000);
    expect(nextRetryAt(11, T0)).toBeNull();
  });
  it('moves a delivery to succeeded, pending (retry) or failed', () => {
    const ok = { kind: 'response' as const, status: 204, body: '', durationMs: 5 };
    const bad = { kind: 'response' as const, status: 302, body: '', durationMs: 5 };
    expect(afterAttempt({ attempts: 0 }, ok, T0)).toMatchObject({ status: 'succeeded', attempts: 1, completedAt: T0 });
    expect(afterAttempt({ attempts: 0 }, bad, T0, () => 0.5)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(T0.getTime() + 30_000),
      responseStatus: 302,
    });
    expect(afterAttempt({ attempts: 10 }, { kind: 'error', error: 'timeout', durationMs: 10_000 }, T0)).toMatchObject({
      status: 'failed',
      attempts: 11,
      lastError: 'timeout',
    });
  });
});

describe('event types and persistent failure', () => {
  it('normalizes event types: * or empty = all, unknown names are field errors', () => {
    expect(normalizeEventTypes(['*', 'x'])).toEqual({ types: [], errors: {} });
    // At most 50 entries, as the gateway checks (duplicates of known types included).
    expect(normalizeEventTypes(Array.from({ length: 51 }, () => 'guest.created')).errors).toEqual({ eventTypes: 'must name at most 50 event types' });
    expect(normalizeEventTypes(Array.from({ length: 50 }, () => 'guest.created')).errors).toEqual({});
    expect(normalizeEventTypes(['guest.created', 'guest.created', 'nope'])).toEqual({
      types: ['guest.created'],
      errors: { 'eventTypes[2]': expect.stringContaining("'nope'") },
    });
    expect(subscribesTo([], 'review.created')).toBe(true);
    expect(subscribesTo(['guest.created'], 'review.created')).toBe(false);
  });
  it('disables an endpoint only when nothing succeeded since the failed delivery began', () => {
    const failed = { createdAt: T0, responseStatus: 500, lastError: null };
    const later = new Date(T0.getTime() + 3 * 86_400_000);
    expect(persistentFailure({ enabled: true, lastSuccessAt: null }, failed, later)).toMatchObject({
      disabledReason: expect.stringContaining('HTTP 500'),
      disabledAt: later,
    });
    expect(persistentFailure({ enabled: true, lastSuccessAt: new Date(T0.getTime() + 1000) }, failed, later)).toBeNull();
    expect(persistentFailure({ enabled: false, lastSuccessAt: null }, failed, later)).toBeNull();
  });
  it('reads a stored success up to the recording window before the failed delivery began as one after it, and an older one not', () => {
    // markSuccess skips the write while the stored success is younger than the window, so the
    // stored time may be up to the window before a success that came after the delivery began.
    const failed = { createdAt: T0, responseStatus: 500, lastError: null };
    const later = new Date(T0.getTime() + 3 * 86_400_000);
    const at = (ms: number) => ({ enabled: true, lastSuccessAt: new Date(T0.getTime() + ms) });
    expect(persistentFailure(at(-SUCCESS_RECORD_WINDOW_MS), failed, later)).toBeNull();
    expect(persistentFailure(at(-SUCCESS_RECORD_WINDOW_MS - 1), failed, later)).toMatchObject({ disabledAt: later });
  });
  it('asks for a success to be written only when the last one read is absent or older than the window', () => {
    const at = new Date(T0.getTime() + 5000);
    expect(successRecordDue(null, at)).toBe(true);
    expect(successRecordDue(new Date(at.getTime() - SUCCESS_RECORD_WINDOW_MS - 1), at)).toBe(true);
    expect(successRecordDue(new Date(at.getTime() - SUCCESS_RECORD_WINDOW_MS), at)).toBe(false);
    expect(successRecordDue(at, at)).toBe(false);
    // A later success already recorded (an attempt that settled after this one) needs nothing either.
    expect(successRecordDue(new Date(at.getTime() + 10), at)).toBe(false);
  });
});

describe('a new subscription', () => {
  it('starts healthy, with a fresh secret of its own and no previous one', () => {
    const input = { url: 'https://example.com/hook', description: 'd', eventTypes: ['reservation.created'], enabled: true };
    const a = newSubscription('ws', 'live', input, T0);
    expect(a).toMatchObject({
      ...input,
      workspaceId: 'ws',
      mode: 'live',
      disabledReason: null,
      disabledAt: null,
      previousSecret: null,
      previousSecretExpiresAt: null,
      lastSuccessAt: null,
      createdAt: T0,
      updatedAt: T0,
    });
    expect(a.id).toMatch(/^whs_/);
    expect(a.secret).toMatch(/^whsec_/);
    const b = newSubscription('ws', 'live', input, T0);
    expect(b.id).not.toBe(a.id);
    expect(b.secret).not.toBe(a.secret);
  });
});
