// webhooks.verify against the signer of the webhook service (the scheme the deliveries use).
import { signatureHeader } from '@vrp/webhook/src/domain/signature';
import { verifyWebhook, WebhookVerificationError } from '../src';

const body = JSON.stringify({ id: 'evt_1', type: 'guest.created', data: { object: { id: 'gst_1' } } });
const now = 1_800_000_000;

function reasonOf(f: () => unknown): string {
  try {
    f();
    return 'accepted';
  } catch (err) {
    return err instanceof WebhookVerificationError ? err.reason : String(err);
  }
}

describe('webhooks.verify', () => {
  const at = (seconds: number) => ({ now: () => seconds * 1000 });

  it('accepts a signature of any of the secrets within the tolerance, from plain or Headers headers', () => {
    const header = signatureHeader(['old', 'new'], now, body);
    expect(verifyWebhook(body, { 'Vrp-Signature': header }, 'new', at(now + 299))).toMatchObject({ id: 'evt_1' });
    expect(verifyWebhook(Buffer.from(body), new Headers({ 'vrp-signature': header }), ['other', 'old'], at(now - 299))).toMatchObject({ id: 'evt_1' });
  });

  it.each([
    ['a timestamp outside the tolerance', signatureHeader(['s'], now, body), 's', now + 301, 'timestamp_outside_tolerance'],
    ['another secret', signatureHeader(['s'], now, body), 't', now, 'no_matching_signature'],
    ['a header without v1', `t=${now}`, 's', now, 'malformed_header'],
    ['a header without t', `v1=${'a'.repeat(64)}`, 's', now, 'malformed_header'],
  ])('refuses %s', (_what, header, secret, clock, reason) => {
    expect(reasonOf(() => verifyWebhook(body, { 'vrp-signature': header }, secret, at(clock)))).toBe(reason);
  });

  it('refuses a body changed after signing', () => {
    const header = signatureHeader(['s'], now, body);
    expect(reasonOf(() => verifyWebhook(body.replace('gst_1', 'gst_2'), { 'vrp-signature': header }, 's', at(now)))).toBe('no_matching_signature');
  });
});
