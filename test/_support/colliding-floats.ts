/**
 * Float64 values that V8 puts in one hash bucket. V8 hashes a number that
 * is not an int32 by its 64 bits with a fixed, unseeded 64-bit mix (each
 * step invertible); inverting the mix from hashes with equal low bits gives
 * keys that share a bucket in any `Map` or `Set` of up to 2^24 entries.
 */
const M = (1n << 64n) - 1n;

/** Inverse of an odd number modulo 2^64 (Newton's iteration). */
function inverse(a: bigint): bigint {
  let x = a;
  for (let i = 0; i < 7; i++) x = (x * (2n - a * x)) & M;
  return x;
}

/** Inverse of `x ^= x >> s`. */
function unshift(h: bigint, s: bigint): bigint {
  let x = h;
  for (let i = 0n; i <= 64n / s; i++) x = h ^ (x >> s);
  return x & M;
}

const INV_65 = inverse(65n);
const INV_21 = inverse(21n);
const INV_2_18_MINUS_1 = inverse((1n << 18n) - 1n);

/** The key whose mixed hash is `h` (the mix: ~k + (k << 18); ^>>31; *21; ^>>11; *65; ^>>22). */
function unmix(h: bigint): bigint {
  let x = unshift(h, 22n);
  x = (x * INV_65) & M;
  x = unshift(x, 11n);
  x = (x * INV_21) & M;
  x = unshift(x, 31n);
  return ((x + 1n) * INV_2_18_MINUS_1) & M;
}

/** `n` distinct finite, non-integer floats whose V8 hashes agree in their low 24 bits. */
export function collidingFloats(n: number): number[] {
  const out: number[] = [];
  const view = new DataView(new ArrayBuffer(8));
  for (let i = 1n; out.length < n; i++) {
    view.setBigUint64(0, unmix((i << 24n) | 0x5a5a5an));
    const f = view.getFloat64(0);
    if (Number.isFinite(f) && !Number.isInteger(f)) out.push(f);
  }
  return out;
}
