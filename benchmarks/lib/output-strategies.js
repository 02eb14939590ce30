// The output strategies the strategies benchmark compares, each built here
// from the library's public API (the library has no hook to swap its output):
//   default  encoder.encode(value): the scratch, then a resizable store sized
//            from the estimate (else chunks), one exact-size copy at the end
//   exact    a plain buffer of exactly encoder.encodedSize(value) bytes, filled by
//            encoder.encodeInto: it walks the value twice (getters and extension
//            encoders run twice)
//   chunks   encoder.encodeChunks(value) joined here: the chunk list from the
//            first overflow, one concatenation at the end
//
// Dependency-free, runs as-is under node, bun and deno.

/** Strategy names, the default first: the order the benchmark reports them in. */
export const STRATEGY_NAMES = /** @type {const} */ (["default", "exact", "chunks"]);

/** @param {Uint8Array[]} parts */
function join(parts) {
  if (parts.length === 1) return parts[0];
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * `encode(value)` under strategy `name`, with `encoder` (an `Encoder` of the library).
 * @param {string} name one of STRATEGY_NAMES
 * @param {{ encode(v: unknown): Uint8Array, encodedSize(v: unknown): number, encodeInto(v: unknown, t: Uint8Array): number, encodeChunks(v: unknown): Uint8Array[] }} encoder
 * @returns {(value: unknown) => Uint8Array}
 */
export function strategyEncode(name, encoder) {
  switch (name) {
    case "default":
      return (value) => encoder.encode(value);
    case "exact":
      return (value) => {
        const out = new Uint8Array(encoder.encodedSize(value));
        encoder.encodeInto(value, out);
        return out;
      };
    case "chunks":
      return (value) => join(encoder.encodeChunks(value));
    default:
      throw new Error(`Unknown output strategy ${name}: expected one of ${STRATEGY_NAMES.join(", ")}`);
  }
}
