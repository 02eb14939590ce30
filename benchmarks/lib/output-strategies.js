// The output strategies the strategies benchmark compares, as encoder
// options. The default is the encoder's own (a resizable store sized from
// the estimate, else a chunk list); the others are plugged in through the
// encoder's internal store-plan hook: an option keyed by
// Symbol.for("@resizable/msgpack/store-plan"), read only by
// `new Encoder(options)` (not by `encode(value, options)`), and not part of
// the public API. Two of them are the production stores chosen another way
// (the store without its estimate, the chunk list alone); two are classic
// designs kept here, out of the library, to be measured against:
//   doubling  a plain buffer doubled by copying
//   exact     a plain buffer of exactly encodedSize(value) bytes, handed over
//             as the result; it measures the value first, so it reads the value
//             twice (getters and extension encoders run twice)
// Past maxByteLength the encoder moves their bytes to its chunks.
//
// Dependency-free, runs as-is under node, bun and deno; the tests use it too
// (test/_support/strategy.ts).

/** The key of the encoder's internal store-plan option. */
export const STORE_PLAN = Symbol.for("@resizable/msgpack/store-plan");

/**
 * A store of one plain buffer grown by copying (doubling), with no
 * referenced binaries: every byte is copied in. It follows the encoder's
 * Store interface (src/encode/store.ts).
 */
class PlainStore {
  /** @param {number} size initial size @param {number} ceiling largest size (the encoder's maxByteLength) */
  constructor(size, ceiling) {
    this.buf = new Uint8Array(Math.min(size, ceiling));
    this.ceiling = ceiling;
    this.length = 0;
  }

  /** Room for `n` more bytes, doubling by copying; false past the ceiling. @param {number} n */
  fits(n) {
    const need = this.length + n;
    const cap = this.buf.length;
    if (need <= cap) return true;
    if (need > this.ceiling) return false;
    const grown = new Uint8Array(Math.min(this.ceiling, Math.max(need, cap * 2)));
    grown.set(this.buf.subarray(0, this.length));
    this.buf = grown;
    return true;
  }

  /** @param {Uint8Array} bytes @param {number} n */
  write(bytes, n) {
    if (!this.fits(n)) return false;
    this.buf.set(n === bytes.length ? bytes : bytes.subarray(0, n), this.length);
    this.length += n;
    return true;
  }

  tail() {
    return null;
  }

  /** @param {Uint8Array} src */
  append(src) {
    return this.write(src, src.length);
  }

  /** @param {number} n */
  reserve(n) {
    return this.fits(n) ? { target: this.buf, offset: this.length } : null;
  }

  /** @param {number} n */
  commit(n) {
    this.length += n;
  }

  parts() {
    return [this.buf.subarray(0, this.length)];
  }

  /** An exactly full buffer is the result itself (no copy); otherwise an exact-length copy. */
  result() {
    const buf = this.buf;
    return this.length === buf.length ? buf : buf.slice(0, this.length);
  }

  chunks() {
    return this.length === 0 ? [] : [this.buf.slice(0, this.length)];
  }

  close() {
    return null;
  }
}

/**
 * What a plan may ask of the encoder's output (src/encode/output.ts).
 * @typedef {{ readonly root: unknown, readonly scratchLength: number, readonly maxByteLength: number,
 *   measure(value: unknown): number, openResizable(need: number, estimate: boolean): object | null, openChunks(): object }} Output
 */

/** The store plans, by strategy name (the default has none: the encoder's own). */
export const STORE_PLANS = {
  /** The resizable store without the estimate pre-pass: reserved up to maxByteLength, started at twice the scratch. */
  "resizable-no-est": { open: (/** @type {number} */ need, /** @type {Output} */ output) => output.openResizable(need, false) ?? output.openChunks() },
  /** The chunk list from the first overflow. */
  chunks: { open: (/** @type {number} */ _need, /** @type {Output} */ output) => output.openChunks() },
  /** A plain buffer of twice the scratch, doubled by copying. */
  doubling: {
    open: (/** @type {number} */ need, /** @type {Output} */ output) => new PlainStore(Math.max(need, output.scratchLength * 2), output.maxByteLength),
  },
  /** A plain buffer of encodedSize(value) bytes, opened before the first byte. */
  exact: {
    begin: (/** @type {unknown} */ root, /** @type {Output} */ output) => new PlainStore(output.measure(root), output.maxByteLength),
    open: (/** @type {number} */ need, /** @type {Output} */ output) => new PlainStore(need, output.maxByteLength),
  },
};

/** Strategy names, the default first: the order the benchmark reports them in. */
export const STRATEGY_NAMES = /** @type {const} */ (["default", "resizable-no-est", "exact", "chunks", "doubling"]);

/**
 * Encoder options for a strategy, merged into `options`. For `new Encoder(...)` only.
 * @param {string} name one of STRATEGY_NAMES ("auto" is the default too)
 * @param {object} [options]
 */
export function strategyOptions(name, options = {}) {
  if (name === "default" || name === "auto") return { ...options };
  const plan = /** @type {Record<string, object>} */ (STORE_PLANS)[name];
  if (plan === undefined) throw new Error(`Unknown output strategy ${name}: expected one of ${STRATEGY_NAMES.join(", ")}`);
  return { ...options, [STORE_PLAN]: plan };
}
