// Pure rules of the gateway: API key format, generation and hashing; the admin token
// comparison; request fingerprints; workspace names; rate limits; sandbox ids.
import { adminTokenMatches } from './admin-token';
import { apiKeyMatchesHash, displayPrefix, generateApiKey, GENERATED_SECRET_LENGTH, hashApiKey, maskedKey, parseApiKey } from './api-key';
import { newApiKeyRecord, principalOf } from './api-key-record';
import { canonicalJson, isValidIdempotencyKey, requestFingerprint } from './idempotency';
import { newWorkspace, normalizeWorkspaceName, workspaceNameKey } from './workspace';
import { dataWorkspaceId, workspaceOfData } from '@vrp/platform/sandbox';
import { DEFAULT_RATE_LIMITS, effectiveRateLimits, mergeRateLimitOverrides, refusalHoldMs } from './rate-limits';

const PEPPER = 'pepper-0123456789-0123456789-0123456789';

describe('API keys', () => {
  it('generates random keys with the mode prefix and a long base58 secret', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey('test')));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(new RegExp(`^sk_test_[1-9A-HJ-NP-Za-km-z]{${GENERATED_SECRET_LENGTH}}$`));
    expect(generateApiKey('live')).toMatch(/^sk_live_/);
  });

  it('parses well-formed keys and refuses everything else', () => {
    expect(parseApiKey('sk_live_' + 'a1'.repeat(16))).toEqual({ raw: 'sk_live_' + 'a1'.repeat(16), mode: 'live', secret: 'a1'.repeat(16) });
    for (const bad of [
      '',
      'sk_test_',
      'sk_test_' + 'a'.repeat(31),
      'sk_dev_' + 'a'.repeat(40),
      'SK_TEST_' + 'a'.repeat(40),
      'sk_test_' + 'a'.repeat(39) + '-',
      ' sk_test_' + 'a'.repeat(40),
      'sk_test_' + 'a'.repeat(129),
    ]) {
      expect(parseApiKey(bad)).toBeNull();
    }
  });

  it('hashes with HMAC-SHA256 under the pepper, deterministically, and verifies in constant time', () => {
    const key = generateApiKey('test');
    const hash = hashApiKey(key, PEPPER);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key, PEPPER)).toBe(hash);
    expect(hashApiKey(key, PEPPER + 'x')).not.toBe(hash);
    expect(hash).not.toContain(key.slice(8, 20));
    expect(apiKeyMatchesHash(key, PEPPER, hash)).toBe(true);
    expect(apiKeyMatchesHash(generateApiKey('test'), PEPPER, hash)).toBe(false);
    expect(apiKeyMatchesHash(key, PEPPER, 'abcd')).toBe(false);
  });

  it('keeps only a short display prefix and the hash in a record', () => {
    const parsed = parseApiKey(generateApiKey('live'))!;
    const record = newApiKeyRecord(parsed, { workspaceId: 'ws_1' }, PEPPER, new Date('2025-01-01T00:00:00Z'));
    expect(record).toMatchObject({
      workspaceId: 'ws_1',
      mode: 'live',
      name: null,
      prefix: displayPrefix(parsed),
      hash: hashApiKey(parsed.raw, PEPPER),
      revokedAt: null,
    });
    expect(record.id).toMatch(/^key_/);
    expect(record.prefix).toBe(parsed.raw.slice(0, 12));
    expect(maskedKey(record.prefix)).toBe(`${record.prefix}…`);
    expect(JSON.stringify(record)).not.toContain(parsed.secret);
  });

  it('authenticates only an unrevoked key of the presented mode', () => {
    const parsed = parseApiKey(generateApiKey('test'))!;
    const record = newApiKeyRecord(parsed, { workspaceId: 'ws_1' }, PEPPER, new Date());
    expect(principalOf(record, parsed)).toEqual({ workspaceId: 'ws_1_test', publicWorkspaceId: 'ws_1', keyId: record.id, mode: 'test' });
    expect(principalOf({ ...record, revokedAt: new Date() }, parsed)).toBeNull();
    expect(principalOf({ ...record, mode: 'live' }, parsed)).toBeNull();
  });
});

describe('admin token', () => {
  it('matches only the exact token', () => {
    expect(adminTokenMatches('operator-token-123456', 'operator-token-123456')).toBe(true);
    expect(adminTokenMatches('operator-token-12345', 'operator-token-123456')).toBe(false);
    expect(adminTokenMatches('', 'operator-token-123456')).toBe(false);
  });
});

describe('idempotency rules', () => {
  it('treats JSON that differs only in key order or undefined members as the same request', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(requestFingerprint('post', '/v1/x', { a: 1, b: undefined })).toBe(requestFingerprint('POST', '/v1/x', { a: 1 }));
    expect(requestFingerprint('POST', '/v1/x', { a: 1 })).not.toBe(requestFingerprint('POST', '/v1/y', { a: 1 }));
  });

  it('accepts visible ASCII keys of 1..255 characters', () => {
    expect(isValidIdempotencyKey('3f1c2a7e-9b1d-4c55-8a0e-5b7f9e2d1c3b')).toBe(true);
    expect(isValidIdempotencyKey('')).toBe(false);
    expect(isValidIdempotencyKey('has space')).toBe(false);
    expect(isValidIdempotencyKey('é')).toBe(false);
    expect(isValidIdempotencyKey('k'.repeat(256))).toBe(false);
  });
});

describe('workspaces', () => {
  it('normalizes names for display and compares them case-insensitively', () => {
    expect(normalizeWorkspaceName('  Sunny \t  Stays ')).toBe('Sunny Stays');
    expect(workspaceNameKey('SUNNY  stays')).toBe(workspaceNameKey('Sunny Stays'));
    const ws = newWorkspace({ name: ' Acme ', activeListingLimit: 3 }, new Date('2025-01-01T00:00:00Z'));
    expect(ws).toMatchObject({ name: 'Acme', activeListingLimit: 3 });
    expect(ws.id).toMatch(/^ws_[1-9A-HJ-NP-Za-km-z]{20}$/);
  });
});

describe('plan rate limits', () => {
  it('fills what the operator did not set with the defaults, ignoring values that are not non-negative integers', () => {
    expect(effectiveRateLimits(undefined)).toEqual(DEFAULT_RATE_LIMITS);
    expect(effectiveRateLimits({ keyBurst: 7, workspaceConcurrency: 2.5 } as never)).toEqual({ ...DEFAULT_RATE_LIMITS, keyBurst: 7 });
  });

  it('merges a change: set values replace, null restores the default, absent fields stay', () => {
    expect(mergeRateLimitOverrides({ keyBurst: 7, keyRequestsPerSecond: 9 }, { keyBurst: null, workspaceBurst: 3 })).toEqual({
      keyRequestsPerSecond: 9,
      workspaceBurst: 3,
    });
  });
});

describe('flood refusal holds', () => {
  it('spreads holds evenly over 500..999 ms, so that a flood held together does not come back together', () => {
    expect(refusalHoldMs(0)).toBe(500);
    expect(refusalHoldMs(0.5)).toBe(750);
    expect(refusalHoldMs(0.999_999)).toBe(999);
    // Sixty-four connections refused at once are answered over the whole span, not in one burst.
    const holds = Array.from({ length: 64 }, (_, i) => refusalHoldMs(i / 64));
    expect(new Set(holds).size).toBe(64);
    expect(Math.max(...holds) - Math.min(...holds)).toBeGreaterThanOrEqual(490);
  });
});

describe('test-mode sandbox ids', () => {
  it('maps a live key to the workspace itself and a test key to its sandbox, and back', () => {
    expect(dataWorkspaceId('ws_abc', 'live')).toBe('ws_abc');
    expect(dataWorkspaceId('ws_abc', 'test')).toBe('ws_abc_test');
    expect(workspaceOfData('ws_abc_test')).toEqual({ workspaceId: 'ws_abc', mode: 'test' });
    expect(workspaceOfData('ws_abc')).toEqual({ workspaceId: 'ws_abc', mode: 'live' });
  });
});
