/**
 * Decoded values as plain data, for comparing the values of two decoders
 * (this library's and msgpackr's): a Buffer and a Uint8Array of the same
 * bytes compare equal, as do bigints, dates and Maps of the same content.
 */

/** Plain data for comparing decoded values (a Buffer and a Uint8Array of the same bytes are equal). */
export function plain(v: unknown): unknown {
  if (typeof v === "bigint") return `${v}n`;
  if (v instanceof Uint8Array) return { bytes: new Uint8Array(v) }; // a copy: a Buffer becomes a plain Uint8Array
  if (v instanceof Date) return { date: v.getTime() };
  if (v instanceof Map) return { map: [...v].map(([k, x]) => [plain(k), plain(x)]) };
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
