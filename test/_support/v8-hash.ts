/**
 * V8's number and string hashes, and keys made to collide in them: the
 * attacks of the adversarial and hash-flooding tests. V8 hashes a number
 * without a seed (number-hash.mjs, shared with the benchmarks, inverts its
 * steps to compute keys that share a bucket); it seeds string hashes per
 * process.
 */
export { collidingFloats, collidingUint32, computeLongHash, computeUnseededHash } from "./number-hash.mjs";

/**
 * V8's string hash (StringHasher in Node 18-24): Jenkins' one-at-a-time
 * over the UTF-16 code units, starting from the process's hash seed.
 */
export function v8StringHash(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h = (h + s.charCodeAt(i)) >>> 0;
    h = (h + (h << 10)) >>> 0;
    h = (h ^ (h >>> 6)) >>> 0;
  }
  h = (h + (h << 3)) >>> 0;
  h = (h ^ (h >>> 11)) >>> 0;
  h = (h + (h << 15)) >>> 0;
  return h & 0x3fffffff;
}
