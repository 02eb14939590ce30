/**
 * The WHATWG stream types that the stream entry's declarations name, so
 * that the published declarations type-check in a project whose `lib` has
 * no DOM and that has no Node types (`lib: ["es2022"]`):
 *
 * - the classes the stream entry extends take `TransformStream` through
 *   {@link TransformStreamBase}, a value typed here, so the declarations
 *   name only the global `TransformStream`, `ReadableStream` and
 *   `WritableStream` interfaces, never their classes;
 * - the build declares those three interfaces empty in this module's
 *   declaration file (test/tools/fix-dts.mjs), with the type parameters the
 *   DOM lib and Node's types give them, so they merge with the full ones
 *   where those are loaded and stand alone where not (not here in src/:
 *   JSR refuses global augmentations, and Deno has the stream types);
 * - what the decoders read is typed structurally ({@link ReadableStreamLike}),
 *   so any `ReadableStream` (DOM, Node's `stream/web`, Bun, Deno) fits.
 *
 * @module
 */

/** The transformer a {@link TransformStreamBase} is made with, as far as the stream entry uses it. */
export interface TransformerLike<I, O> {
  transform(chunk: I, controller: { enqueue(chunk: O): void }): void;
}

/**
 * The global `TransformStream` class, for `extends`: read when the stream
 * entry's encoder and decoder streams are defined, as `extends
 * TransformStream` would read it.
 */
export const TransformStreamBase: new <I, O>(transformer: TransformerLike<I, O>) => TransformStream<I, O> = Reflect.get(globalThis, "TransformStream");

/** What a `ReadableStream`'s default reader does, as far as the decoders use it. */
export interface ReadableStreamReaderLike<T> {
  read(): Promise<{ done: false; value: T } | { done: true; value?: T | undefined }>;
  releaseLock(): void;
  cancel(reason?: unknown): Promise<void>;
}

/** A `ReadableStream`, as far as the decoders use it: anything with a `getReader()` of that shape. */
export interface ReadableStreamSourceLike<T> {
  getReader(): ReadableStreamReaderLike<T>;
}

/** A source of chunks: a WHATWG `ReadableStream` (typed structurally) or any `AsyncIterable` (a Node readable, an async generator). */
export type ReadableStreamLike<T> = ReadableStreamSourceLike<T> | AsyncIterable<T>;

/**
 * A chunk of input bytes: a `Uint8Array` (a Node `Buffer` is one), an
 * `ArrayBuffer`, any view, or (as @msgpack/msgpack accepts, at the cost of
 * a copy) an array or array-like of byte values, each an integer 0..255
 * (anything else is a `DecodeError` with code `INVALID_ARGUMENT`).
 */
export type ByteChunk = Uint8Array | ArrayBuffer | ArrayBufferView | ArrayLike<number>;
