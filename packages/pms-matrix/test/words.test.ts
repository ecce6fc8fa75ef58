// The matrix in words: what API descriptions say about refusals is generated from the table.
import { refusalNote, refusedOn } from '../src';

describe('PMS refusals in words, from the matrix', () => {
  it('names the refusing PMSs, "every PMS" or "every PMS but"', () => {
    expect(refusedOn('reservation.cancel')).toBe('PMS-A');
    expect(refusedOn('reservation.quote')).toBe('PMS-C, PMS-D and PMS-E');
    expect(refusedOn('reservation.move_listing')).toBe('every PMS');
    expect(refusedOn('reservation.group_booking')).toBe('every PMS but PMS-D');
    expect(refusedOn('reservation.create')).toBe('no PMS');
    expect(refusalNote('message.attachments')).toBe('Refused (422 pms_write_unsupported, nothing sent) on PMS-F and PMS-G.');
  });
});
