// The output strategies the strategies benchmark compares, as encoder
// options. The default is the encoder's own (a resizable store sized from
// the estimate, else a chunk list); the others are plugged in through the
// encoder's internal spill-plan hook: an option keyed by
// Symbol.for("@resizable/msgpack/spill-plan"), read only by
// `new Encoder(options)` (not by `encode(value, options)`), and not part of
// the public API. Two of them are the production spills chosen another way
// (the store without its estimate, the chunk list alone); two are classic
// designs kept here, out of the library, to be measured against:
//   doubling  a plain buffer doubled by copying
//   exact     a plain buffer of exactly encodedSize(value) bytes, handed over
//             as the result; it measures the value first, so it reads the value
//             twice (getters and extension encoders run twice)
// Past maxByteLength both hand their bytes to the encoder's chunk list.
//
// Dependency-free, runs as-is under node, bun and deno; the tests use it too
// (test/_support/spill.ts).

/** The key of the encoder's internal spill-plan option. */
export const SPILL_PLAN = Symbol.for("@resizable/msgpack/spill-plan");

/**
 * A spill into one plain buffer grown by copying (doubling), with no
 * referenced binaries: every byte is copied in. It follows the encoder's
 * Spill interface (src/encode/spill.ts).
 */
class PlainSpill {
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
  take(bytes, n) {
    if (!this.fits(n)) return false;
    this.buf.set(n === bytes.length ? bytes : bytes.subarray(0, n), this.length);
    this.length += n;
    return true;
  }

  room() {
    return null;
  }

  /** @param {Uint8Array} src */
  append(src) {
    return this.take(src, src.length);
  }

  /** @param {number} n */
  reserve(n) {
    return this.fits(n) ? { target: this.buf, offset: this.length } : null;
  }

  /** @param {number} n */
  commit(n) {
    this.length += n;
  }

  /** @param {{ push(part: Uint8Array, lent: boolean): void }} list */
  passTo(list) {
    if (this.length > 0) list.push(this.buf.subarray(0, this.length), false);
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
 * @typedef {{ readonly root: unknown, readonly scratchLength: number, readonly maxByteLength: number,
 *   measure(value: unknown): number, openStore(need: number, estimate: boolean): object | null, openChunks(): object }} SpillContext
 */

/** The spill plans, by strategy name (the default has none: the encoder's own). */
export const SPILL_PLANS = {
  /** The resizable store without the estimate pre-pass: reserved up to maxByteLength, started at twice the scratch. */
  "resizable-no-est": { open: (/** @type {number} */ need, /** @type {SpillContext} */ sink) => sink.openStore(need, false) ?? sink.openChunks() },
  /** The chunk list from the first overflow. */
  chunks: { open: (/** @type {number} */ _need, /** @type {SpillContext} */ sink) => sink.openChunks() },
  /** A plain buffer of twice the scratch, doubled by copying. */
  doubling: {
    open: (/** @type {number} */ need, /** @type {SpillContext} */ sink) => new PlainSpill(Math.max(need, sink.scratchLength * 2), sink.maxByteLength),
  },
  /** A plain buffer of encodedSize(value) bytes, opened before the first byte. */
  exact: {
    begin: (/** @type {unknown} */ root, /** @type {SpillContext} */ sink) => new PlainSpill(sink.measure(root), sink.maxByteLength),
    open: (/** @type {number} */ need, /** @type {SpillContext} */ sink) => new PlainSpill(need, sink.maxByteLength),
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
  const plan = /** @type {Record<string, object>} */ (SPILL_PLANS)[name];
  if (plan === undefined) throw new Error(`Unknown output strategy ${name}: expected one of ${STRATEGY_NAMES.join(", ")}`);
  return { ...options, [SPILL_PLAN]: plan };
}
