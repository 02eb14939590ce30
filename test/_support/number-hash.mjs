// V8's number hashes, and keys made to collide in them: the attacks of the
// adversarial tests and of benchmarks/adversarial.js. V8 hashes a number
// without a seed (each step of the mix is invertible, so keys that share a
// bucket can be computed). Plain JavaScript with no imports, so the tests
// and the benchmarks (node, bun, deno) share it. Types: number-hash.d.mts.

const M64 = (1n << 64n) - 1n;

/** The inverse of an odd multiplier modulo 2^64 (Newton's iteration). */
function inverse64(a) {
  let x = a;
  for (let i = 0; i < 7; i++) x = (x * (2n - a * x)) & M64;
  return x;
}

/** The inverse of `x ^= x >> s` on 64 bits: x = y ^ y >> s ^ y >> 2s ^ ..., in log2(64 / s) steps. */
function unshift64(y, s) {
  let x = y;
  for (let shift = s; shift < 64n; shift *= 2n) x ^= x >> shift;
  return x & M64;
}

/** V8's ComputeLongHash (src/utils/utils.h): how a Map hashes a heap number, from its bits. */
export function computeLongHash(key) {
  let h = key;
  h = ((~h & M64) + (h << 18n)) & M64;
  h ^= h >> 31n;
  h = (h * 21n) & M64;
  h ^= h >> 11n;
  h = (h + (h << 6n)) & M64;
  h ^= h >> 22n;
  return Number(h & 0x3fffffffn);
}

const INV_2_18_M1 = inverse64((1n << 18n) - 1n);
const INV_21 = inverse64(21n);
const INV_65 = inverse64(65n);

/** The 64-bit key whose ComputeLongHash steps end in `h` (before the final 30-bit mask). */
function longHashPreimage(h) {
  let x = unshift64(h, 22n);
  x = (x * INV_65) & M64;
  x = unshift64(x, 11n);
  x = (x * INV_21) & M64;
  x = unshift64(x, 31n);
  return ((x + 1n) * INV_2_18_M1) & M64;
}

/** `n` distinct doubles (no NaN, no integers that V8 would hash as Smis) with one ComputeLongHash. */
export function collidingFloats(n, hash = 0x12345) {
  const f64 = new Float64Array(1);
  const u64 = new BigUint64Array(f64.buffer);
  const out = [];
  for (let hi = 1n; out.length < n; hi++) {
    const key = longHashPreimage((((hi * 0x9e3779b97f4a7c15n) & ((1n << 34n) - 1n)) << 30n) | BigInt(hash));
    u64[0] = key;
    const d = f64[0];
    if (Number.isNaN(d) || Number.isInteger(d)) continue;
    out.push(d);
  }
  return out;
}

/** V8's ComputeUnseededHash: how a Map hashes a Smi or a uint32-valued number. */
export function computeUnseededHash(key) {
  let h = key >>> 0;
  h = (~h + (h << 15)) >>> 0;
  h = (h ^ (h >>> 12)) >>> 0;
  h = (h + (h << 2)) >>> 0;
  h = (h ^ (h >>> 4)) >>> 0;
  h = Math.imul(h, 2057) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return h & 0x3fffffff;
}

function inverse32(a) {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x)) >>> 0;
  return x >>> 0;
}

function unshift32(y, s) {
  let x = y;
  for (let i = 0; i < 32; i++) x = (y ^ (x >>> s)) >>> 0;
  return x;
}

const INV_2057 = inverse32(2057);
const INV_5 = inverse32(5);
const INV_2_15_M1 = inverse32(32767);

/**
 * `n` (at most 65536) distinct uint32 keys whose ComputeUnseededHash shares
 * its low 16 bits: one bucket of any Map of up to 2^17 entries. (The hash
 * is a bijection on 32 bits, so a full 30-bit collision has only 4 keys.)
 */
export function collidingUint32(n, low = 0x1234) {
  const out = [];
  for (let i = 0; i < n; i++) {
    let h = ((i << 16) | low) >>> 0;
    h = unshift32(h, 16);
    h = Math.imul(h, INV_2057) >>> 0;
    h = unshift32(h, 4);
    h = Math.imul(h, INV_5) >>> 0;
    h = unshift32(h, 12);
    out.push(Math.imul((h + 1) >>> 0, INV_2_15_M1) >>> 0);
  }
  return out;
}

/**
 * MessagePack bytes of a map 32 of `n` entries, each key written by `key`
 * (`keyBytes` long, at `at`), each value nil.
 * @param {number} n @param {number} keyBytes @param {(dv: DataView, at: number, i: number) => void} key
 */
export function mapOfKeys(n, keyBytes, key) {
  const out = new Uint8Array(5 + n * (keyBytes + 1));
  const dv = new DataView(out.buffer);
  out[0] = 0xdf;
  dv.setUint32(1, n);
  for (let i = 0, at = 5; i < n; i++, at += keyBytes + 1) {
    key(dv, at, i);
    out[at + keyBytes] = 0xc0;
  }
  return out;
}

/** A map whose keys are these numbers as float 64. @param {number[]} keys */
export function float64Keys(keys) {
  return mapOfKeys(keys.length, 9, (dv, at, i) => (dv.setUint8(at, 0xcb), dv.setFloat64(at + 1, keys[i])));
}

/** A map whose keys are these numbers as uint 32. @param {number[]} keys */
export function uint32Keys(keys) {
  return mapOfKeys(keys.length, 5, (dv, at, i) => (dv.setUint8(at, 0xce), dv.setUint32(at + 1, keys[i])));
}
