/**
 * Base64 (RFC 4648, the standard alphabet) for the JSON form's binaries
 * and extension payloads, on every runtime (no `Buffer`, no `btoa`).
 *
 * @module
 */


const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_INDEX[B64.charCodeAt(i)] = i;

/** `b` in base64 (RFC 4648, with padding). */
export function toBase64(b: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  if (i < b.length) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8);
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + (i + 1 < b.length ? B64[(n >> 6) & 63]! : "=") + "=";
  }
  return out;
}

/**
 * The bytes of base64 text (RFC 4648, no whitespace); null when it is not
 * base64. Padding may be left out, but padding that is there must be
 * right (`QQ==`, not `QQ=` or `QUI==`), and the bits past the last byte
 * must be zero, so that each text names one byte string.
 */
export function fromBase64(text: string): Uint8Array | null {
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const s = pad === 0 ? text : text.slice(0, -pad);
  const rest = s.length % 4;
  if (rest === 1 || (pad > 0 && rest + pad !== 4)) return null;
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B64_INDEX[c]! : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  // the bits left over (2 or 4) are not part of any byte: they must be zero
  if ((acc & ((1 << bits) - 1)) !== 0) return null;
  return out;
}
