// Confirmation codes: short, read aloud over the phone and typed from a screenshot, so the
// alphabet leaves out characters people confuse (0/O, 1/I/L, 2/Z, 5/S, 8/B, U/V).
import { randomInt } from 'node:crypto';

export const CONFIRMATION_ALPHABET = '34679ACDEFGHJKMNPQRTWXY';
export const CONFIRMATION_LENGTH = 8;

/** 23^8 ≈ 7.8e10 codes: a collision within a workspace is rare, and the unique index catches it. */
export function newConfirmationCode(): string {
  let code = '';
  for (let i = 0; i < CONFIRMATION_LENGTH; i++) code += CONFIRMATION_ALPHABET[randomInt(CONFIRMATION_ALPHABET.length)];
  return code;
}
