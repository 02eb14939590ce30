/**
 * The inputs every decode function accepts, viewed as bytes.
 *
 * @module
 */

/** Views any accepted input as bytes, without copying. */
export function toBytes(input: Uint8Array | ArrayBuffer | ArrayBufferView): Uint8Array {
  // a subclass such as Node's Buffer would make slice() return views: use plain Uint8Array
  if (input instanceof Uint8Array && input.constructor === Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const raw: unknown = input;
  if (raw instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && raw instanceof SharedArrayBuffer)) {
    return new Uint8Array(raw);
  }
  throw new TypeError(`Cannot decode ${input === null ? "null" : typeof input}: expected a Uint8Array, ArrayBuffer or ArrayBufferView`);
}
