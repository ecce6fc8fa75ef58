// Key -> partition, identical to kafkajs's DefaultPartitioner (the Java client's murmur2
// partitioner): partition = (murmur2(utf8(key)) & 0x7fffffff) % partitions. The memory engine
// uses it so a key lands on the same partition number as it would on Kafka.
//
// kafkajs computes murmur2 with 64-bit Longs but only ever keeps the low 32 bits, so 32-bit
// Math.imul arithmetic gives the same result (checked against kafkajs in bus.memory.test.ts).

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

export function murmur2(key: string | Uint8Array): number {
  const data = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  const length = data.length;
  const byte = (i: number): number => (data[i] ?? 0) & 0xff;

  let h = (SEED ^ length) | 0;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = byte(i4) | (byte(i4 + 1) << 8) | (byte(i4 + 2) << 16) | (byte(i4 + 3) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }

  const tail = length & ~3;
  const rest = length & 3;
  if (rest >= 3) h ^= byte(tail + 2) << 16;
  if (rest >= 2) h ^= byte(tail + 1) << 8;
  if (rest >= 1) {
    h ^= byte(tail);
    h = Math.imul(h, M);
  }

  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

export function partitionForKey(key: string, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
