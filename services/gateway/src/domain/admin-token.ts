// Operator token comparison. Both sides are hashed first so timingSafeEqual always compares
// equal-length buffers: neither the content nor the length of the configured token leaks
// through response timing.
import { createHash, timingSafeEqual } from 'node:crypto';

export function adminTokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
