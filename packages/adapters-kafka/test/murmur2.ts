/**
 * An independent 32-bit murmur2 (Kafka's `Utils.murmur2`, seed 0x9747b28c) written with
 * `Math.imul`, to check kafkajs' Long-based implementation against. Test-only.
 */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const at = (i: number) => (data[i] ?? 0) & 0xff;
  for (let i = 0; i + 4 <= length; i += 4) {
    let k = at(i) | (at(i + 1) << 8) | (at(i + 2) << 16) | (at(i + 3) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const tail = length & ~3;
  const rest = length % 4;
  if (rest >= 3) h ^= at(tail + 2) << 16;
  if (rest >= 2) h ^= at(tail + 1) << 8;
  if (rest >= 1) h = Math.imul(h ^ at(tail), m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** Java's `BuiltInPartitioner.partitionForKey`: `toPositive(murmur2(key)) % partitions`. */
export const javaPartition = (key: string, partitions: number): number => (murmur2(Buffer.from(key, "utf8")) & 0x7fffffff) % partitions;

/**
 * `[key, Utils.murmur2(key.getBytes(UTF_8)), partition of 6]`, printed by the Java client itself
 * (kafka-clients 4.4.0, `org.apache.kafka.common.utils.Utils`), not by this file.
 */
export const JAVA_MURMUR2_VECTORS: readonly (readonly [string, number, number])[] = [
  ["21", -973932308, 0],
  ["foobar", -790332482, 0],
  ["a-little-bit-long-string", -985981536, 2],
  ["a-little-bit-longer-string", -1486304829, 5],
  ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971, 5],
  ["abc", 479470107, 3],
  ["", 275646681, 3],
  ["KL1234-20261129-A", 1026771741, 3],
  ["LH400_2026-11-29_FRA", 963697309, 1],
  ["20261129AY1234D", 980395652, 2],
  ["flid:42", 686752927, 1],
  ["\u00e9\u2708 Z\u00fcrich", 860815845, 3],
  ["0", 971027396, 2],
  ["1", -1993445489, 3],
  ["2", 648968168, 2],
  ["3", -1148165505, 5],
  ["4", 1514888353, 1],
  ["5", 55100550, 0],
  ["6", 1157411398, 4],
  ["7", -1961297549, 3],
  ["8", 828913227, 3],
  ["9", 415544963, 5],
];
