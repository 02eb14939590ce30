/**
 * A streaming reader of MessagePack structure, for inputs of any size in
 * constant memory: fed chunks, it walks headers on the first-byte table of
 * src/format/forms.ts and skips payloads (checking strings' UTF-8 and
 * timestamps on the way), counting bytes and values per form and per key
 * path, and says where each top-level value ends. Its first error is the
 * one `decodeMulti` throws for the whole input (the same code, offset and
 * message): an error inside a container is held until the input's length
 * is known, since the decoder first checks that each container's items
 * can fit in the input. Only the default limits apply, and `maxDepth`.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { DecodeError, invalidUtf8, reservedByte, tooDeepToDecode, truncated } from "../common/errors.ts";
import { FIRST_BYTE, fixedSizeOf, formName, lengthFieldOf, readLength, wireKindOf } from "../format/forms.ts";
import { DEFAULT_MAX_DEPTH } from "../common/limits.ts";
import { readTimestamp, TIMESTAMP_TYPE } from "../format/timestamp.ts";
import { decodeUtf8 } from "../format/utf8.ts";
import { formOf } from "./tree.ts";

/** Count and bytes of one form or one key path. */
export interface Tally {
  count: number;
  bytes: number;
}

/** One open container. */
interface Frame {
  /** Items (array) or keys and values (map) still to read. */
  left: number;
  isMap: boolean;
  /** Its first byte's offset. */
  start: number;
  /** The offset its items need the input to reach at least (the decoder checks this first). */
  need: number;
  /** The items (array) or entries (map) it declares. */
  declared: number;
  path: string;
  /** The path of its items (arrays), or of the value of the last key read (maps). */
  itemPath: string;
}

/** Distinct key paths counted; the rest are counted together. */
export const MAX_PATHS = 10_000;
/** Bytes of a map key kept for its path segment. */
const KEY_BYTES = 64;

const lenient = new TextDecoder();

/** The path segment of a string key: `.name`, or `["a b"]`. */
export function segment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? "." + key : `[${JSON.stringify(key)}]`;
}

/**
 * Walks a MessagePack stream chunk by chunk; see the module doc. Call
 * {@link push} for each chunk and {@link finish} at the end.
 */
export class StreamWalker {
  /** Per first byte: values, and their bytes (containers: their headers only). */
  private readonly formCount = new Float64Array(256);
  private readonly formBytes = new Float64Array(256);
  /** Paths by parent path and segment, so each path is one string (one hash) however often it is met. */
  private readonly pathMemo = new Map<string, Map<string, string>>();
  /** Path segments by key text. */
  private readonly segments = new Map<string, string>();
  /** Per key path (`$`, `$.users[].name`): values and their total bytes. */
  readonly paths: Map<string, Tally> = new Map();
  /** Top-level values read. */
  values = 0;
  /** Bytes read. */
  offset = 0;
  /** The first error, once known (after {@link finish} for errors inside containers). */
  error: DecodeError | null = null;
  /** Called with the offset after each complete top-level value. */
  onValue: ((end: number) => void) | null = null;

  private readonly maxDepth: number;
  private readonly frames: Frame[] = [];
  /** An error held until the input's length is known, and the containers open when it was found. */
  private pending: DecodeError | null = null;
  private pendingFrames: Frame[] = [];

  // the item being read
  private head = new Uint8Array(16);
  private headLen = 0;
  private headNeed = 0;
  private itemStart = 0;
  private payloadLeft = 0;
  private payloadSize = 0;
  private payloadKind = 0;
  private extType = 0;
  /** Bytes of the payload kept: a map key's first bytes, or a timestamp's payload. */
  private readonly keep = new Uint8Array(KEY_BYTES);
  private keepLen = 0;
  private keepMax = 0;
  /** A strict UTF-8 decoder for a string split across chunks, else null. */
  private utf8: TextDecoder | null = null;
  private utf8Bad = false;

  constructor(options?: { maxDepth?: number }) {
    this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  /** Per form name ("fixstr", "uint 16", "fixext 4"): values and bytes (containers: their headers only). */
  forms(): Map<string, Tally> {
    const out = new Map<string, Tally>();
    for (let t = 0; t < 256; t++) {
      if (this.formCount[t] === 0) continue;
      const name = formOf(t);
      const tally = out.get(name) ?? { count: 0, bytes: 0 };
      tally.count += this.formCount[t]!;
      tally.bytes += this.formBytes[t]!;
      out.set(name, tally);
    }
    return out;
  }

  /** `parent` + `seg`, the same string each time. */
  private child(parent: string, seg: string): string {
    let memo = this.pathMemo.get(parent);
    if (memo === undefined) this.pathMemo.set(parent, (memo = new Map()));
    let path = memo.get(seg);
    if (path === undefined) {
      path = this.paths.size >= MAX_PATHS && !this.paths.has(parent + seg) ? "(other paths)" : parent + seg;
      if (memo.size < MAX_PATHS) memo.set(seg, path);
    }
    return path;
  }

  /** Whether the walk has stopped at an error (later bytes are only counted). */
  get stopped(): boolean {
    return this.error !== null || this.pending !== null;
  }

  /** The offset that the bytes read need the input to reach for the decoder to report the held error (or 0). */
  required(): number {
    let n = 0;
    for (const f of this.pendingFrames) n = Math.max(n, f.need);
    return this.pending ? Math.max(n, this.pending.offset + 1) : n;
  }

  /** Reads a chunk. */
  push(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.stopped) {
        this.offset += n - i;
        return;
      }
      if (this.payloadLeft > 0) {
        const take = Math.min(this.payloadLeft, n - i);
        this.payload(chunk, i, take);
        i += take;
        this.offset += take;
        this.payloadLeft -= take;
        if (this.payloadLeft === 0) this.endPayload();
        continue;
      }
      if (this.headLen === 0) {
        // a new item: how many header bytes it has
        const t = chunk[i]!;
        const form = FIRST_BYTE[t]!;
        const kind = wireKindOf(form);
        this.itemStart = this.offset;
        this.headNeed = 1 + lengthFieldOf(form) + (kind === 10 ? 1 : kind >= 3 && kind <= 5 ? fixedSizeOf(form) : 0);
      }
      // header bytes (a header split across chunks is collected over several calls)
      while (this.headLen < this.headNeed && i < n) {
        this.head[this.headLen++] = chunk[i++]!;
        this.offset++;
      }
      if (this.headLen === this.headNeed) this.header();
    }
  }

  /** Ends the input: any value left open is truncated (the decoder's error for it). */
  finish(): DecodeError | null {
    if (this.error) return this.error;
    const end = this.offset;
    const open = this.pending ? this.pendingFrames : this.frames;
    // the decoder checks each container's item count against the input before reading its items
    for (const f of open) {
      if (f.need > end) {
        const what = f.isMap ? `map of ${f.declared} entries` : `array of ${f.declared} items`;
        return (this.error = truncated(f.start, f.need - f.start, end, what));
      }
    }
    if (this.pending) return (this.error = this.pending);
    if (this.headLen > 0) {
      const t = this.head[0]!;
      const form = FIRST_BYTE[t]!;
      const field = lengthFieldOf(form);
      const kind = wireKindOf(form);
      if (this.headLen < 1 + field || (field === 0 && kind !== 10)) return (this.error = truncated(this.itemStart, kind === 10 ? 1 + field : this.headNeed, end, formName(t)));
      return (this.error = truncated(this.itemStart, 2 + field, end, "extension type"));
    }
    if (this.payloadLeft > 0) {
      const what = this.payloadKind === 6 ? "string" : this.payloadKind === 7 ? "binary" : "extension";
      return (this.error = truncated(this.itemStart, this.headNeed + this.payloadSize, end, what));
    }
    if (this.frames.length > 0) return (this.error = truncated(end, 1, end, "value"));
    return null;
  }

  /** Holds `e` until the input's length is known (see the module doc). */
  private hold(e: DecodeError): void {
    // final at once when every open container's items fit in the bytes read so far
    if (this.frames.every((f) => f.need <= this.offset)) {
      this.error = e;
      return;
    }
    this.pending = e;
    this.pendingFrames = this.frames.slice();
  }

  /** The path of the item being read. */
  private path(): string {
    const f = this.frames[this.frames.length - 1];
    if (f === undefined) return "$";
    return f.isMap && f.left % 2 === 0 ? this.child(f.path, "{key}") : f.itemPath;
  }

  private countPath(path: string, bytes: number): void {
    let tally = this.paths.get(path);
    if (tally === undefined) this.paths.set(path, (tally = { count: 0, bytes: 0 }));
    tally.count++;
    tally.bytes += bytes;
  }

  private countForm(t: number, bytes: number): void {
    this.formCount[t]!++;
    this.formBytes[t]! += bytes;
  }

  /** A complete header in `head`. */
  private header(): void {
    const h = this.head;
    const t = h[0]!;
    const form = FIRST_BYTE[t]!;
    const kind = wireKindOf(form);
    const field = lengthFieldOf(form);
    const n = field === 0 ? fixedSizeOf(form) : readLength(h, 1, field);
    const start = this.itemStart;
    this.headLen = 0;
    if (kind === 11) return this.hold(reservedByte(start));
    if (kind === 8 || kind === 9) {
      this.countForm(t, this.headNeed);
      const need = this.offset + (kind === 9 ? 2 * n : n);
      const path = this.path();
      const frame: Frame = { left: kind === 9 ? 2 * n : n, isMap: kind === 9, start, need, declared: n, path, itemPath: kind === 9 ? path : this.child(path, "[]") };
      if (this.frames.length >= this.maxDepth) {
        // the decoder checks the item count first
        this.frames.push(frame);
        this.hold(tooDeepToDecode(start, this.maxDepth));
        this.frames.pop();
        return;
      }
      if (n === 0) return this.done(start, frame.path, "{}");
      this.frames.push(frame);
      return;
    }
    if (kind === 6 || kind === 7 || kind === 10) {
      this.payloadKind = kind;
      this.payloadSize = n;
      this.extType = kind === 10 ? (h[1 + field]! << 24) >> 24 : 0;
      const top = this.frames[this.frames.length - 1];
      const isKey = top !== undefined && top.isMap && top.left % 2 === 0;
      this.keepLen = 0;
      this.keepMax = kind === 6 && isKey ? KEY_BYTES : kind === 10 && this.extType === TIMESTAMP_TYPE && n <= 12 ? n : 0;
      this.utf8 = null;
      this.utf8Bad = false;
      this.payloadLeft = n;
      if (n === 0) this.endPayload();
      return;
    }
    // nil, booleans, numbers
    this.countForm(t, this.headNeed);
    let key = "";
    if (kind >= 3 && kind <= 5) {
      const top = this.frames[this.frames.length - 1];
      if (top !== undefined && top.isMap && top.left % 2 === 0) key = `[${numberAt(h, t, form)}]`;
    } else key = `[${kind === 0 ? "null" : kind === 2}]`;
    this.done(start, this.path(), key);
  }

  /** `take` payload bytes at `i` of `chunk`. */
  private payload(chunk: Uint8Array, i: number, take: number): void {
    if (this.keepLen < this.keepMax) {
      const k = Math.min(take, this.keepMax - this.keepLen);
      this.keep.set(chunk.subarray(i, i + k), this.keepLen);
      this.keepLen += k;
    }
    if (this.payloadKind !== 6 || this.utf8Bad) return;
    if (take === this.payloadSize) {
      // the whole string in this chunk: the decoder's own UTF-8 reader
      try {
        decodeUtf8(chunk, i, take);
      } catch {
        this.utf8Bad = true;
      }
      return;
    }
    try {
      (this.utf8 ??= new TextDecoder("utf-8", { fatal: true })).decode(chunk.subarray(i, i + take), { stream: this.payloadLeft > take });
    } catch {
      this.utf8Bad = true;
    }
  }

  private endPayload(): void {
    const start = this.itemStart;
    const kind = this.payloadKind;
    const n = this.payloadSize;
    const t = this.head[0]!;
    this.countForm(t, this.headNeed + n);
    if (kind === 6 && this.utf8Bad) return this.hold(invalidUtf8(start + this.headNeed));
    if (kind === 10 && this.extType === TIMESTAMP_TYPE) {
      try {
        // a payload of another size fails on its length alone, read before any byte: it is not kept
        readTimestamp(n <= 12 ? this.keep.slice(0, n) : ({ length: n } as Uint8Array), start);
      } catch (e) {
        if (e instanceof DecodeError) return this.hold(e);
        throw e;
      }
    }
    let key = "";
    if (kind === 6 && this.keepMax > 0) {
      // a key cut at KEY_BYTES may end inside a character: that one is decoded leniently
      const text = n > KEY_BYTES ? lenient.decode(this.keep) : decodeUtf8(this.keep, 0, this.keepLen);
      key = this.segments.get(text) ?? "";
      if (key === "") {
        key = segment(n > KEY_BYTES ? text + "..." : text);
        if (this.segments.size < MAX_PATHS) this.segments.set(text, key);
      }
    } else if (kind === 6) key = "";
    else key = kind === 7 ? "[<bin>]" : `[<ext ${this.extType}>]`;
    this.done(start, this.path(), key);
  }

  /** An item from `start` to here is complete; `key` is its path segment if it is a map key. */
  private done(start: number, path: string, key: string): void {
    for (;;) {
      const top = this.frames[this.frames.length - 1];
      const isKey = top !== undefined && top.isMap && top.left % 2 === 0;
      if (isKey) top.itemPath = this.child(top.path, key);
      else this.countPath(path, this.offset - start);
      if (top === undefined) {
        this.values++;
        this.onValue?.(this.offset);
        return;
      }
      if (--top.left > 0) return;
      // the container is complete: it is an item of the one around it
      this.frames.pop();
      start = top.start;
      path = top.path;
      key = "{}";
    }
  }
}

/** A number's value from its header bytes `h` (first byte `t`), for a key path. */
function numberAt(h: Uint8Array, t: number, form: number): string {
  if (t < 0x80) return String(t);
  if (t >= 0xe0) return String(t - 0x100);
  const n = fixedSizeOf(form);
  const view = new DataView(h.buffer, h.byteOffset + 1, n);
  if (t === 0xca) return String(view.getFloat32(0));
  if (t === 0xcb) return String(view.getFloat64(0));
  const signed = t >= 0xd0;
  if (n === 1) return String(signed ? view.getInt8(0) : view.getUint8(0));
  if (n === 2) return String(signed ? view.getInt16(0) : view.getUint16(0));
  if (n === 4) return String(signed ? view.getInt32(0) : view.getUint32(0));
  return String(signed ? view.getBigInt64(0) : view.getBigUint64(0));
}
