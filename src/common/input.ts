/**
 * Binary values viewed as bytes: the inputs every decode function accepts,
 * and the binaries the encoders write.
 *
 * @module
 */

import { badArgument } from "./errors.ts";

/**
 * What the decode functions read: a `Uint8Array` (a Node `Buffer` too), any
 * other typed array or `DataView` (its bytes), an `ArrayBuffer` or
 * `SharedArrayBuffer`, or an array of byte values (integers in 0..255),
 * which is copied.
 */
export type DecodeInput = ArrayLike<number> | ArrayBufferLike | ArrayBufferView;

/** Whether `value` is bytes, written as bin: any `ArrayBuffer` view, an `ArrayBuffer` or a `SharedArrayBuffer`. */
export function isBinary(value: unknown): value is ArrayBufferView | ArrayBufferLike {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer);
}

/**
 * `value` viewed as bytes, without copying, when it is a typed array,
 * `DataView`, `ArrayBuffer` or `SharedArrayBuffer`; otherwise undefined.
 */
export function bytesOf(value: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return isBinary(value) ? new Uint8Array(value as ArrayBuffer) : undefined;
}

/** Whether `buffer` was detached (transferred): asked only of empty ones (where `detached` is missing, as in Node 18, a detached one cannot be viewed). */
export function isDetached(buffer: ArrayBuffer): boolean {
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * What a decoder reads of `value` (`what`, at stream offset `offset`, for
 * the error): a `Uint8Array` as it is, any other view or buffer as
 * {@link bytesOf} views it, else undefined.
 *
 * @throws {DecodeError} `INVALID_ARGUMENT` for a buffer that was detached
 *   (transferred), or a view over one, where the engine would throw a
 *   bare `TypeError` or see no bytes
 */
export function inputBytes(value: unknown, what: string, offset: number): Uint8Array | undefined {
  const buffer: unknown = ArrayBuffer.isView(value) ? value.buffer : value;
  if (buffer instanceof ArrayBuffer && buffer.byteLength === 0 && isDetached(buffer)) throw badArgument(what, value, "bytes: its buffer was detached (transferred)", offset);
  return value instanceof Uint8Array && value.constructor === Uint8Array ? value : bytesOf(value);
}

/**
 * Any accepted input as a plain `Uint8Array`: views and buffers without
 * copying (a `Buffer` or other subclass as a plain view, so results never
 * hold its views), an array of byte values copied.
 *
 * @throws {DecodeError} `INVALID_ARGUMENT` for anything else, a detached
 *   buffer, or an array element that is not an integer in 0..255
 *   (`offset`: its index)
 */
export function toBytes(input: DecodeInput): Uint8Array {
  if (input instanceof Uint8Array && input.constructor === Uint8Array && input.length !== 0) return input;
  return inputBytes(input, "the input", 0) ?? fromArray(input as ArrayLike<unknown>);
}

/** Copies an array of byte values, refusing anything that is not one. */
function fromArray(input: ArrayLike<unknown>): Uint8Array {
  const n = typeof input === "object" && input !== null ? input.length : undefined;
  if (typeof n !== "number" || !(n >= 0 && n % 1 === 0)) throw badArgument("the input", input, "a Uint8Array, ArrayBuffer, view or array of bytes");
  for (let i = 0; i < n; i++) {
    const v = input[i];
    if (((v as number) & 0xff) !== v) throw badArgument(`input[${i}]`, v, "a byte (an integer in 0..255)", i);
  }
  return new Uint8Array(input as ArrayLike<number>);
}
