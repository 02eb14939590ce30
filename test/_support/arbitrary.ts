/**
 * Seeded random values for property tests. Every generator takes a `Random`
 * made from a seed, so a failure can be replayed: tests print the seed.
 */

import { Random } from "./fixtures.mjs";

// The PRNG and its `Random` the tests, the runtime checks and the benchmarks
// share, and the vector files' hex form ("c4-01-ff"), from fixtures.mjs.
export { bytesToHex as hex, hexToBytes as fromHex, mulberry32, Random } from "./fixtures.mjs";

/** Numbers near every format boundary, plus random ones. */
export function number(r: Random): number {
  const edges = [
    0, 1, 15, 16, 31, 32, 127, 128, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32,
    2 ** 53 - 1, -1, -31, -32, -33, -127, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 53 - 1),
    0.5, -0.5, 1.1, 1e300, -1e-300, Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, -0, NaN, Infinity, -Infinity,
  ];
  switch (r.int(0, 4)) {
    case 0:
      return r.pick(edges) + (r.bool(0.3) ? r.int(-1, 1) : 0);
    case 1:
      return r.int(-1000, 1000);
    case 2:
      return Math.floor((r.next() - 0.5) * 2 ** r.int(1, 53));
    case 3:
      return (r.next() - 0.5) * 10 ** r.int(-10, 20);
    default:
      return r.int(0, 127);
  }
}

const ALPHABETS = [
  "abcdefghijklmnopqrstuvwxyz0123456789 ",
  "äöüßéèêàçñ",
  "日本語中文한국어",
  "😀🎉👍🏽🚀",
];

/** Strings of lengths around every str boundary, ASCII to emoji. */
export function string(r: Random, maxLength = 300): string {
  const lengths = [0, 1, 31, 32, 33, 63, 64, 65, 255, 256, r.int(0, maxLength)];
  const n = Math.min(maxLength, r.pick(lengths));
  const alphabet = r.pick(ALPHABETS);
  const chars = [...alphabet];
  let s = "";
  while (s.length < n) s += r.pick(chars);
  return s;
}

export interface ValueOptions {
  /** Include types only this library round-trips exactly (bigint, Date, Map with non-string keys, -0, NaN). */
  rich?: boolean;
  maxDepth?: number;
  maxItems?: number;
}

/** A random value of nested arrays, objects and scalars. */
export function value(r: Random, options: ValueOptions = {}, depth = 0): unknown {
  const maxDepth = options.maxDepth ?? 4;
  const maxItems = options.maxItems ?? 8;
  const kinds = depth >= maxDepth ? 6 : 8;
  switch (r.int(0, kinds + (options.rich ? 3 : 0))) {
    case 0:
      return null;
    case 1:
      return r.bool();
    case 2:
    case 3: {
      const n = number(r);
      return options.rich ? n : Number.isNaN(n) || Object.is(n, -0) ? 0 : n;
    }
    case 4:
    case 5:
      return string(r);
    case 6:
      return r.bytes(r.pick([0, 1, 255, 256, r.int(0, 600)]));
    case 7: {
      const n = r.int(0, maxItems);
      return Array.from({ length: n }, () => value(r, options, depth + 1));
    }
    case 8: {
      const obj: Record<string, unknown> = {};
      const n = r.int(0, maxItems);
      for (let i = 0; i < n; i++) obj[string(r, 12)] = value(r, options, depth + 1);
      return obj;
    }
    case 9:
      return BigInt(r.pick([-1, 1])) * (2n ** 53n + BigInt(r.int(0, 1e9)) * 1000n);
    case 10:
      return new Date(r.int(-1e13, 1e13));
    default: {
      const m = new Map<unknown, unknown>();
      const n = r.int(1, maxItems);
      // the first key is not a string: maps with only string keys decode as objects
      for (let i = 0; i < n; i++) m.set(i === 0 || r.bool() ? r.int(-300, 300) : string(r, 8), value(r, options, Math.max(depth + 1, maxDepth)));
      return m;
    }
  }
}

/** Runs `body` for `count` seeds from a base seed; on failure the message names the seed. */
export function forSeeds(count: number, body: (r: Random) => void, base = Number(process.env.SEED ?? 1)): void {
  for (let i = 0; i < count; i++) {
    const seed = base + i;
    try {
      body(new Random(seed));
    } catch (e) {
      const err = e as Error;
      err.message = `[seed ${seed}; rerun with SEED=${seed}] ${err.message}`;
      throw err;
    }
  }
}
