import { AppError } from '@vrp/platform/errors';
import { assertSupported, pmsCapabilities, PROVIDERS, reservationCapabilities, supports, WRITES, type PmsWrite } from '../src';

describe('PMS capability matrix', () => {
  const refused: [string, PmsWrite][] = [
    ['PMS-A', 'reservation.cancel'],
    ['PMS-B', 'reservation.change_dates'],
    ['PMS-C', 'reservation.quote'],
    ['PMS-D', 'reservation.quote'],
    ['PMS-E', 'reservation.quote'],
    ['PMS-F', 'reservation.unit_id'],
    ['PMS-E', 'reservation.unit_id'],
    ['PMS-E', 'reservation.tentative_hold'],
    ['PMS-F', 'review.reply'],
    ['PMS-F', 'request.answer'],
    ['PMS-F', 'inquiry.pre_approve'],
    // No pre-approvals at all, so none that blocks instant booking.
    ['PMS-F', 'inquiry.block_instant_booking'],
    ['PMS-F', 'guest.write'],
    ['PMS-F', 'content.house_rule_switches'],
    ['PMS-G', 'content.rooms'],
    ['PMS-G', 'content.translations'],
    ['PMS-G', 'message.attachments'],
    ['PMS-F', 'message.attachments'],
    ['PMS-G', 'inquiry.block_instant_booking'],
    ...PROVIDERS.flatMap((p) =>
      (['reservation.owner_block', 'reservation.move_listing', 'reservation.change_times'] as const).map((w): [string, PmsWrite] => [p, w]),
    ),
    ...PROVIDERS.filter((p) => p !== 'PMS-D').map((p): [string, PmsWrite] => [p, 'reservation.group_booking']),
  ];

  it.each(refused)('%s cannot %s', (provider, write) => {
    expect(supports(provider, write)).toBe(false);
    let err: unknown;
    try {
      assertSupported(provider, write);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('pms_write_unsupported');
    expect((err as AppError).details.provider).toBe(provider);
    expect((err as AppError).fix).toContain(provider);
  });

  it('supports every other write, and every write on a listing with no PMS', () => {
    const refusedSet = new Set(refused.map(([p, w]) => `${p}|${w}`));
    for (const provider of PROVIDERS) {
      for (const write of Object.keys(WRITES) as PmsWrite[]) {
        expect([provider, write, supports(provider, write)]).toEqual([provider, write, !refusedSet.has(`${provider}|${write}`)]);
      }
    }
    for (const write of Object.keys(WRITES) as PmsWrite[]) expect(supports('', write)).toBe(true);
  });

  it('derives the capability flags from the same table', () => {
    expect(reservationCapabilities('PMS-A')).toMatchObject({ provider: 'PMS-A', cancel: false, quote: true, create: true });
    expect(reservationCapabilities('PMS-C').quote).toBe(false);
    expect(pmsCapabilities('PMS-F')).toMatchObject({
      reviewReplies: false,
      requestAnswers: false,
      preApprovals: false,
      guests: false,
      messageAttachments: false,
    });
    expect(pmsCapabilities('PMS-G').contentSections).toEqual(['description', 'amenities', 'house_rules', 'house_rule_switches']);
  });
});
