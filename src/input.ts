/**
 * Binary values viewed as bytes: the inputs every decode function accepts,
 * and the binaries the encoders write.
 *
 * @module
 */

/**
 * `value` viewed as bytes, without copying, when it is a typed array,
 * `DataView`, `ArrayBuffer` or `SharedArrayBuffer`; otherwise undefined.
 */
export function bytesOf(value: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer)) {
    return new Uint8Array(value);
  }
  return undefined;
}

/** Views any accepted input as bytes, without copying. */
export function toBytes(input: Uint8Array | ArrayBuffer | ArrayBufferView): Uint8Array {
  // a subclass such as Node's Buffer would make slice() return views: use plain Uint8Array
  if (input instanceof Uint8Array && input.constructor === Uint8Array) return input;
  const bytes = bytesOf(input);
  if (bytes !== undefined) return bytes;
  throw new TypeError(`Cannot decode ${input === null ? "null" : typeof input}: not a Uint8Array, ArrayBuffer or view`);
}
