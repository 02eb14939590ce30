/**
 * The MessagePack format as the spec writes it, for tests' oracles:
 * written out by hand from the spec's format table, never imported from
 * src/, so a wrong entry in the library's tables cannot also be the
 * expected value. Also the text helpers the inspector's JSON and stats
 * oracles need (base64, ISO time, escaping, path segments), each written
 * from its definition or taken from the platform.
 */

export type Kind = "nil" | "false" | "true" | "uint" | "int" | "float" | "str" | "bin" | "array" | "map" | "ext" | "reserved";

export interface SpecForm {
  kind: Kind;
  /** Bytes of the length field (0 for fixed forms). */
  field: number;
  /** For fixed forms, the payload size (fixint 0, uint 8: 1, fixext 4: 4) or item count (fixstr, fixarray, fixmap). */
  fixed: number;
  /** First byte, length field and an ext's type byte. */
  header: number;
  /** The spec's name of the format: "positive fixint", "uint 8", "fixext 4", "never used". */
  name: string;
}

/** What the spec says a first byte `t` starts. */
export function specForm(t: number): SpecForm {
  const fixed = (kind: Kind, size: number, name: string, header = 1): SpecForm => ({ kind, field: 0, fixed: size, header, name });
  const sized = (kind: Kind, field: number): SpecForm => ({ kind, field, fixed: 0, header: 1 + field + (kind === "ext" ? 1 : 0), name: `${kind} ${8 * field}` });
  const number = (kind: Kind, size: number): SpecForm => fixed(kind, size, `${kind} ${8 * size}`);
  if (t <= 0x7f) return fixed("uint", 0, "positive fixint");
  if (t <= 0x8f) return fixed("map", t & 0x0f, "fixmap");
  if (t <= 0x9f) return fixed("array", t & 0x0f, "fixarray");
  if (t <= 0xbf) return fixed("str", t & 0x1f, "fixstr");
  if (t >= 0xe0) return fixed("int", 0, "negative fixint");
  switch (t) {
    case 0xc0: return fixed("nil", 0, "nil");
    case 0xc1: return fixed("reserved", 0, "never used");
    case 0xc2: return fixed("false", 0, "false");
    case 0xc3: return fixed("true", 0, "true");
    case 0xc4: return sized("bin", 1);
    case 0xc5: return sized("bin", 2);
    case 0xc6: return sized("bin", 4);
    case 0xc7: return sized("ext", 1);
    case 0xc8: return sized("ext", 2);
    case 0xc9: return sized("ext", 4);
    case 0xca: return number("float", 4);
    case 0xcb: return number("float", 8);
    case 0xcc: return number("uint", 1);
    case 0xcd: return number("uint", 2);
    case 0xce: return number("uint", 4);
    case 0xcf: return number("uint", 8);
    case 0xd0: return number("int", 1);
    case 0xd1: return number("int", 2);
    case 0xd2: return number("int", 4);
    case 0xd3: return number("int", 8);
    case 0xd4: return fixed("ext", 1, "fixext 1", 2);
    case 0xd5: return fixed("ext", 2, "fixext 2", 2);
    case 0xd6: return fixed("ext", 4, "fixext 4", 2);
    case 0xd7: return fixed("ext", 8, "fixext 8", 2);
    case 0xd8: return fixed("ext", 16, "fixext 16", 2);
    case 0xd9: return sized("str", 1);
    case 0xda: return sized("str", 2);
    case 0xdb: return sized("str", 4);
    case 0xdc: return sized("array", 2);
    case 0xdd: return sized("array", 4);
    case 0xde: return sized("map", 2);
    case 0xdf: return sized("map", 4);
  }
  throw new Error(`not a byte: ${t}`);
}

// ---- the shortest form an encoder writes (the spec's "should use the shortest") ----

/** The first byte of the shortest encoding of the integer `v`. */
export function shortestIntByte(v: number): number {
  if (v >= 0) return v < 0x80 ? v : v <= 0xff ? 0xcc : v <= 0xffff ? 0xcd : v <= 0xffffffff ? 0xce : 0xcf;
  return v >= -32 ? v & 0xff : v >= -0x80 ? 0xd0 : v >= -0x8000 ? 0xd1 : v >= -0x80000000 ? 0xd2 : 0xd3;
}

/** The header size of the shortest str header for `n` UTF-8 bytes. */
export function shortestStrHeader(n: number): number {
  return n < 32 ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5;
}

/** The first byte of the shortest bin header for `n` bytes. */
export function shortestBinByte(n: number): number {
  return n <= 0xff ? 0xc4 : n <= 0xffff ? 0xc5 : 0xc6;
}

/** The first byte of the shortest array header for `n` items. */
export function shortestArrayByte(n: number): number {
  return n < 16 ? 0x90 | n : n <= 0xffff ? 0xdc : 0xdd;
}

/** The first byte of the shortest map header for `n` entries. */
export function shortestMapByte(n: number): number {
  return n < 16 ? 0x80 | n : n <= 0xffff ? 0xde : 0xdf;
}

/** The first byte of the shortest ext header for `n` data bytes. */
export function shortestExtByte(n: number): number {
  const fix = [1, 2, 4, 8, 16].indexOf(n);
  if (fix >= 0) return 0xd4 + fix;
  return n <= 0xff ? 0xc7 : n <= 0xffff ? 0xc8 : 0xc9;
}

// ---- text ----

/** Standard base64 with padding (RFC 4648), by Node's Buffer. */
export function base64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");
}

/** A timestamp as ISO 8601 in UTC, with as many fraction digits as it needs in groups of 3 (none for whole seconds). */
export function isoTime(sec: number, nsec: number): string {
  const whole = new Date(sec * 1000).toISOString().replace(/\.000Z$/, "");
  if (nsec === 0) return `${whole}Z`;
  const digits = nsec % 1e6 === 0 ? 3 : nsec % 1e3 === 0 ? 6 : 9;
  return `${whole}.${String(nsec).padStart(9, "0").slice(0, digits)}Z`;
}

/**
 * Whether the code unit `c` is escaped in printed text: C0 controls, DEL
 * and C1 controls, and the bidirectional formatting characters (ALM, LRM,
 * RLM, LRE..RLO, LRI..PDI) that could reorder what a terminal shows.
 */
function unsafe(c: number): boolean {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** `text` with every unsafe code unit written as `\uXXXX`. */
export function escapeControls(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += unsafe(c) ? `\\u${c.toString(16).padStart(4, "0")}` : text[i];
  }
  return out;
}

/** The key path segment of a string key: `.name` for an identifier, else `["..."]` as JSON with controls escaped. */
export function segment(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${escapeControls(JSON.stringify(key))}]`;
}
