/**
 * The reader under every stream decoder: it takes byte chunks, holding
 * what is not read yet, and reads what the stream holds out of them as each
 * value completes: one value (`decodeAsync`), the items of one array
 * (`decodeArrayStream`), or back-to-back values, plain or in length-prefixed
 * frames (`decodeMultiStream`, `DecoderStream`). Each value is decoded by
 * the decoder itself with the stream offset of the buffered bytes as its
 * base, so it reports exactly what a whole-input decode of the same bytes
 * would, with stream offsets.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { CoreDecoder } from "../decode/decoder.ts";
import { headerError } from "../decode/limits.ts";
import type { RecordState } from "../decode/record-hook.ts";
import { badArgument, decodeAt, DecodeError, extraBytes, overLimit, truncated, wrongInput } from "../common/errors.ts";
import { FIRST_BYTE, fixedSizeOf, lengthFieldOf, readLength, WIRE_ARRAY, wireKindOf } from "../format/forms.ts";
import { inputBytes } from "../common/input.ts";
import type { ResolvedDecodeOptions, StreamDecodeOptions } from "../decode/options.ts";
import type { ByteChunk } from "./web.ts";
import { createStreamStats, type StreamStats } from "./queue.ts";
import { ItemCounter } from "./scanner.ts";

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/** The smallest buffer the reader allocates: values split across tiny chunks then cost no allocation each. */
const MIN_BUFFER = 4096;

/** An empty buffer larger than this is released instead of being kept for reuse, so one huge value does not pin its memory. */
const MAX_IDLE_BUFFER = 16_777_216; // 16 MiB

/** Returned by {@link StreamReader.next} when it needs more bytes (or, at the end, when the stream holds nothing more). */
export const NEED_MORE: unique symbol = Symbol("need more bytes");

/** What a stream holds: exactly one value, one array whose items are read one by one, or back-to-back values. */
export type StreamShape = "value" | "array" | "values";

/**
 * Reads values out of the byte chunks of a stream.
 *
 * A value is decoded with the bytes at hand; when they end inside it, an
 * {@link ItemCounter} finds where it ends as bytes arrive, and it is
 * decoded again once complete, or when the counter meets a header the
 * decoder may refuse before the rest arrives (a length past twice the
 * bytes at hand, deep nesting), at most each time the bytes have doubled.
 * The decoder has the last word, and a decode with more bytes only ever
 * gets further, so the work is linear in the bytes whatever the chunking.
 */
export class StreamReader {
  /** Where the unread bytes are, at `bytes[start..end)`: the last chunk received, read in place, or `own`. */
  private bytes: Uint8Array;
  private start: number;
  private end: number;
  /** Stream offset of `bytes[start]`. */
  private offset: number;
  /**
   * The reader's own buffer, holding the start of a value split across chunks and the chunks after it;
   * free from its start whenever it is not `bytes`.
   */
  private own: Uint8Array;
  readonly stats: StreamStats;
  readonly decoder: CoreDecoder<unknown>;
  readonly shape: StreamShape;
  private readonly counter: ItemCounter;
  /** With records, the structures of this stream: those a value declares stay declared for the next. */
  private readonly records: RecordState | null;
  private readonly settings: ResolvedDecodeOptions;
  /** Values still to come: 1 for one value, Infinity for back-to-back values; for an array, -1 before its header, then its items. */
  private left: number;
  /** The bytes the value at hand was last tried with; 0: not tried yet. */
  private tried: number;
  /** The stream offset of the value {@link next} returned last (after a frame's prefix). */
  private at: number;
  /**
   * An array: decode() checks its item count against the bytes (each item takes one at least) before
   * its depth and its items, so an error is held until the stream has reached `itemsEnd` (then thrown)
   * or has ended short of it (then the array of `count` items at `arrayAt` is truncated, as decode() says).
   */
  private held: DecodeError | null;
  private arrayAt: number;
  private count: number;
  private itemsEnd: number;

  /**
   * @param options the stream decode options (with `decoder`, its own are used)
   * @param shape what the stream holds (`lengthPrefixed` is for back-to-back values only: else `INVALID_ARGUMENT`)
   * @param decoder the decoder to use, else one made from `options`
   */
  constructor(options: StreamDecodeOptions<unknown> | undefined, shape: StreamShape, decoder?: CoreDecoder<unknown>) {
    const d = decoder ?? new CoreDecoder<unknown>(options);
    const settings = d.options;
    if (settings.lengthPrefixed && shape !== "values") {
      throw badArgument("option lengthPrefixed", true, "false here: length-prefixed frames are read by decodeMultiStream, DecoderStream and Decoder#decodeStream");
    }
    this.stats = settings.stats ?? createStreamStats();
    this.bytes = this.own = EMPTY;
    this.start = this.end = this.offset = 0;
    this.decoder = d;
    this.shape = shape;
    this.records = d.newRecords();
    this.counter = new ItemCounter(this.records);
    this.settings = settings;
    this.left = shape === "value" ? 1 : shape === "array" ? -1 : Infinity;
    this.tried = this.at = this.arrayAt = this.count = this.itemsEnd = 0;
    this.held = null;
  }

  /** Unread bytes, in all. */
  get available(): number {
    return this.end - this.start;
  }

  /**
   * Takes a chunk (a plain `Uint8Array` view of it, or a checked copy of an
   * array of byte values: see {@link chunkBytes}). It is read in place when
   * nothing else is unread; otherwise its bytes are appended to `own`.
   */
  push(chunk: ByteChunk): void {
    const bytes = chunkBytes(chunk, this.offset + this.available);
    const n = bytes.length;
    if (n === 0) return;
    this.stats.bytesIn += n;
    if (this.start === this.end) {
      this.bytes = bytes;
      this.start = 0;
      this.end = n;
    } else {
      this.settle(); // the reader settles before waiting: this is a safety net
      this.append(bytes);
    }
    this.noteHeld();
  }

  /**
   * Called before waiting for more bytes: the unread part of a chunk read in
   * place is copied into `own`, so no chunk of the source is held while the
   * source makes the next one (a producer may reuse its buffer).
   */
  private settle(): void {
    if (this.bytes === this.own) return;
    const rest = this.bytes.subarray(this.start, this.end);
    this.bytes = this.own;
    this.start = this.end = 0;
    if (rest.length > 0) this.append(rest);
    this.noteHeld();
  }

  /** Marks `n` unread bytes as read (`n <= available`). */
  private consume(n: number): void {
    this.start += n;
    this.offset += n;
    if (this.start < this.end) return;
    // all read: let go of a chunk read in place; `own` is kept for reuse (unless it is huge), less what was read if its bytes must stay
    if (this.own.length > MAX_IDLE_BUFFER) this.own = EMPTY;
    else if (this.settings.binaryAsView && this.bytes === this.own) this.own = this.own.subarray(this.end);
    this.bytes = this.own;
    this.start = this.end = 0;
    this.noteHeld();
  }

  /**
   * Appends bytes to `own`, which holds the unread bytes. When they do not
   * fit, the unread bytes move to the front if that frees enough (at least
   * half the buffer), else to a buffer twice the size needed: each move is
   * paid for by at least as many bytes appended since the last one, so the
   * work stays linear in the bytes.
   */
  private append(data: Uint8Array): void {
    const n = data.length;
    if (this.end + n > this.own.length) {
      const unread = this.end - this.start;
      // with `binaryAsView` results may be views of `own`: its written bytes are never overwritten
      if (!this.settings.binaryAsView && unread + n <= this.own.length >>> 1) {
        this.own.copyWithin(0, this.start, this.end);
      } else {
        const next = new Uint8Array(Math.max(MIN_BUFFER, 2 * (unread + n)));
        next.set(this.own.subarray(this.start, this.end));
        this.own = this.bytes = next;
      }
      this.stats.bytesCopied += unread;
      this.start = 0;
      this.end = unread;
    }
    this.own.set(data, this.end);
    this.end += n;
    this.stats.bytesCopied += n;
  }

  private noteHeld(): void {
    const held = this.own.length + (this.bytes === this.own ? 0 : this.bytes.length);
    this.stats.bufferedBytes = held;
    if (held > this.stats.maxBufferedBytes) this.stats.maxBufferedBytes = held;
  }

  /**
   * The next value, or NEED_MORE: the bytes at hand hold no complete one
   * (the reader lets go of the last chunk), or, once the source has ended
   * (`final`), the stream holds nothing more.
   *
   * @throws {DecodeError} what decode() gives for the same bytes, with stream offsets; at the
   *   end, `TRUNCATED` for a value cut short; `EXTRA_BYTES` after the one value or array
   */
  next(final: boolean): unknown {
    if (this.left < 0 && this.readArrayHeader(final) === NEED_MORE) return NEED_MORE;
    if (this.held === null && this.left > 0 && (this.available > 0 || (final && this.left !== Infinity))) {
      try {
        const value = this.settings.lengthPrefixed ? this.readFrame(final) : this.read(final);
        if (value !== NEED_MORE) this.left--;
        return value;
      } catch (e) {
        if (this.shape !== "array" || !(e instanceof DecodeError)) throw e;
        this.held = e;
      }
    }
    const received = this.offset + this.available;
    if (this.held !== null) {
      if (received >= this.itemsEnd) throw this.held;
      if (final) throw truncated(this.arrayAt, this.itemsEnd - this.arrayAt, received, `array of ${this.count} items`, true);
      this.consume(this.available); // only the count of the bytes still matters
    } else if (this.available > 0) {
      // after the one value: what the stream looks like, while its first bytes are at hand (bytes[0] is its offset 0)
      throw extraBytes(this.offset, this.available, this.shape === "value" && this.offset === this.start ? wrongInput(this.bytes.subarray(0, this.end), this.start) : null);
    }
    this.settle();
    return NEED_MORE;
  }

  /**
   * `value`, the value {@link next} returned last, as the decoder's
   * `schema` gives it: the schema's output, or a Promise of it (an
   * asynchronous schema); `value` itself without a schema.
   *
   * @throws {DecodeError} `SCHEMA_MISMATCH` at the value's stream offset (or the Promise rejects with it)
   */
  checked(value: unknown): unknown {
    const check = this.decoder.check;
    return check === null ? value : check(value, this.at, true);
  }

  /** Reads the header of the stream's array (decode()'s verdict on it: a length over the limit at once, a depth error held); NEED_MORE while it is incomplete. */
  private readArrayHeader(final: boolean): typeof NEED_MORE | undefined {
    const at = this.offset;
    const available = this.available;
    const t = this.bytes[this.start]!;
    const form = FIRST_BYTE[t]!;
    if (available > 0 && wireKindOf(form) !== WIRE_ARRAY) throw decodeAt("array", at, `Unrecognized array type byte: 0x${t.toString(16)} (the stream does not start with an array)`, "INVALID_BYTE");
    const size = available === 0 ? 1 : 1 + lengthFieldOf(form);
    if (available < size) {
      if (final) throw truncated(at, size, at + available, "array header", true);
      return this.needMore(0);
    }
    const n = size === 1 ? fixedSizeOf(form) : readLength(this.bytes, this.start + 1, size - 1);
    const refused = headerError(this.decoder.limits, WIRE_ARRAY, n, 0, false, at);
    if (refused !== null && refused.code !== "MAX_DEPTH") throw refused;
    this.held = refused;
    this.arrayAt = at;
    this.left = this.count = n;
    this.stats.bytesDecoded += size;
    this.consume(size);
    this.itemsEnd = this.offset + n;
  }

  private read(final: boolean): unknown {
    const available = this.available;
    const at = this.offset;
    if (!final && this.tried > 0) {
      const n = this.counter.scan(this.bytes, this.start, this.end, this.stats);
      if (n > this.settings.maxValueBytes) throw this.tooLarge(`${n} bytes`);
      // decoded when complete (unless already tried with its bytes), or once the bytes have doubled at an alarm
      // (or should the counter find it complete and the decoder have disagreed: never the case)
      if (n <= this.tried && !((n >= 0 || this.counter.alarm) && available >= 2 * this.tried)) return this.needMore(available);
    }
    try {
      // (the items of an array one level down, as decode() reads them)
      const depth = this.shape === "array" ? 1 : 0;
      // at the end, the decoder's TRUNCATED error says where the stream ended (or that a value is still to come)
      const [item, stop] = this.decoder.readAt(this.end === this.bytes.length ? this.bytes : this.bytes.subarray(0, this.end), this.start, at - this.start, depth, this.records, null, final);
      const n = stop - this.start;
      if (n > this.settings.maxValueBytes) throw this.tooLarge(`${n} bytes`);
      this.tried = 0;
      this.stats.bytesDecoded += n;
      this.at = at;
      this.consume(n);
      return item;
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.stats.bytesDecoded += available;
      if (e.code !== "TRUNCATED" || final) throw e;
      // the value runs past the bytes at hand: count its items as they arrive
      this.counter.mark(available, this.tried === 0);
      this.tried = available;
      return this.needMore(available);
    }
  }

  /** NEED_MORE, unless the incomplete value already has more than `maxValueBytes`; lets go of the source's chunk. */
  private needMore(available: number): typeof NEED_MORE {
    if (available > this.settings.maxValueBytes) throw this.tooLarge(`more than ${available} bytes`);
    this.settle();
    return NEED_MORE;
  }

  /** A MAX_LENGTH error for the value at hand, of `size`. */
  private tooLarge(size: string): DecodeError {
    return decodeAt("value", this.offset, `max length exceeded, it takes ${size}, over maxValueBytes (${this.settings.maxValueBytes})`, "MAX_LENGTH");
  }

  /** The value of the frame at hand: its u32 length prefix, then exactly one value. */
  private readFrame(final: boolean): unknown {
    const available = this.available;
    const at = this.offset;
    const total = available < 4 ? 4 : 4 + readLength(this.bytes, this.start, 4);
    if (total - 4 > this.settings.maxValueBytes) throw overLimit("frame", at, total - 4, "maxValueBytes", this.settings.maxValueBytes);
    if (available < total) {
      if (final) throw truncated(at, total, at + available, "frame", true);
      return this.needMore(0);
    }
    // the frame's value, as decode() reads it, with offsets from the start of the stream
    const frame = this.bytes.subarray(this.start + 4, this.start + total);
    const [value, stop] = this.decoder.readAt(frame, 0, at + 4, 0, this.records);
    if (stop !== frame.length) throw extraBytes(at + 4 + stop, frame.length - stop);
    this.stats.bytesDecoded += total;
    this.consume(total);
    this.at = at + 4;
    return value;
  }
}

/**
 * Views a chunk as a plain `Uint8Array` (a Node `Buffer` too, so results
 * never hold `Buffer` views); an array of byte values is copied, each
 * element checked (an integer 0..255) as it is read, into a list that
 * grows with the elements read: a bad element, or a length the array does
 * not have, fails before a buffer of that length exists. `offset` is the
 * chunk's stream offset.
 */
function chunkBytes(chunk: ByteChunk, offset: number): Uint8Array {
  if (chunk instanceof Uint8Array && chunk.constructor === Uint8Array && chunk.length !== 0) return chunk;
  const bytes = inputBytes(chunk, `the stream chunk at offset ${offset}`, offset);
  if (bytes !== undefined) return bytes;
  const notBytes = (why: string): DecodeError => decodeAt("a stream chunk", offset, why, "INVALID_ARGUMENT");
  const n = typeof chunk === "object" && chunk !== null ? (chunk as ArrayLike<unknown>).length : undefined;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw notBytes(`${chunk === null ? "null" : typeof chunk} is not bytes (a Uint8Array, ArrayBuffer, view or array of byte values)`);
  }
  const list: number[] = [];
  for (let i = 0; i < n; i++) {
    const b = (chunk as ArrayLike<unknown>)[i];
    if (typeof b !== "number" || (b & 0xff) !== b) throw notBytes(`element ${i} is ${typeof b === "string" ? JSON.stringify(b) : String(b)}, not a byte value (an integer 0..255)`);
    list.push(b);
  }
  return new Uint8Array(list);
}
