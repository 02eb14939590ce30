/**
 * Error classes thrown by the encoder and the decoder, and the cold helpers
 * that build them, so hot paths only say `throw truncated(...)` and every
 * reader and writer shares one text per error. These functions, and every
 * module of the encoder and the decoder, name codes as string literals
 * (checked against the code types), not through the code objects below,
 * so a bundle that only throws or tests codes does not carry those objects.
 *
 * Errors are made one way: every error this library throws is made by a
 * function of this module, and no other module says `new ...Error`. An
 * error about the input, a value or an argument is a {@link DecodeError} or
 * an {@link EncodeError} with a stable `code`, built where the problem is
 * found, from its fields: {@link decodeAt} makes its message from what
 * could not be decoded, the offset and why (`Cannot decode string at
 * offset 3: invalid UTF-8`), {@link encodeAbout} from what could not be
 * encoded and why; a named function (`truncated`, `overLimit`,
 * `badArgument`...) gives the fields of each error that several places
 * throw. An error of the encoder's walk gets the path of its value as the
 * walk unwinds ({@link walkError}); no message is rewritten later, and
 * only {@link isEngineStackOverflow} reads an engine's message. Two errors are `TypeError`s, as @msgpack/msgpack's
 * and the engine's are for the same mistakes: a stream function given
 * something that is no stream ({@link notAStream}), and a `Map` whose
 * iterator has no `next()` ({@link iteratorWithoutNext}, only ever the
 * `cause` of an `EncodeError`). A cause is attached as `new Error(message, { cause })` attaches it
 * (or, where a bundle would otherwise not carry it, as a plain property).
 * The command-line program's errors, which it prints and never lets a
 * caller catch, are its own.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

/** Stable codes carried by {@link DecodeError.code}. */
export const DecodeErrorCode = {
  /** The input ended inside a value; more bytes would let it continue. */
  TRUNCATED: "TRUNCATED",
  /** A byte that the format does not define (0xc1). */
  INVALID_BYTE: "INVALID_BYTE",
  /** A string is not valid UTF-8. */
  INVALID_UTF8: "INVALID_UTF8",
  /** Nesting deeper than `maxDepth`. */
  MAX_DEPTH: "MAX_DEPTH",
  /** A declared length above one of the `max*Length` options. */
  MAX_LENGTH: "MAX_LENGTH",
  /** Bytes left over after the value; use `decodeMulti` for back-to-back values. */
  EXTRA_BYTES: "EXTRA_BYTES",
  /**
   * An extension whose payload is malformed (for example a timestamp), or
   * whose decoder failed on a payload that ends inside a value (the error
   * it threw is the `cause`): never `TRUNCATED`, since more input cannot help.
   */
  INVALID_EXT: "INVALID_EXT",
  /** A map key that cannot be used: `mapKeyConverter` returned something other than a string or number. */
  INVALID_KEY: "INVALID_KEY",
  /** An argument that is not what the function takes: input that is not bytes, a bad offset, an invalid option. */
  INVALID_ARGUMENT: "INVALID_ARGUMENT",
  /** A decoded value that the `schema` option refused: the error's `issues` say why, its `offset` where the value starts. */
  SCHEMA_MISMATCH: "SCHEMA_MISMATCH",
} as const;

/** One of the {@link DecodeErrorCode} values. */
export type DecodeErrorCode = (typeof DecodeErrorCode)[keyof typeof DecodeErrorCode];

/**
 * One issue a schema found with a decoded value (a `SCHEMA_MISMATCH`
 * error's `issues`): the schema's message, and the keys from the value's
 * root to the part it is about (`[]` for the root; a Standard Schema's
 * `{ key }` path items given as their keys).
 */
export interface SchemaIssue {
  readonly message: string;
  readonly path: readonly PropertyKey[];
}

/** Stable codes carried by {@link EncodeError.code}. */
export const EncodeErrorCode = {
  /** A value of a type MessagePack cannot represent (function, symbol...). */
  UNSUPPORTED_TYPE: "UNSUPPORTED_TYPE",
  /** Nesting deeper than `maxDepth` (or than the call stack allows). */
  MAX_DEPTH: "MAX_DEPTH",
  /** A string, binary, array, map or extension longer than 2^32-1. */
  TOO_LONG: "TOO_LONG",
  /** A bigint outside the int64/uint64 range. */
  BIGINT_RANGE: "BIGINT_RANGE",
  /** A `Date` whose time is NaN. */
  INVALID_DATE: "INVALID_DATE",
  /** An extension type outside -128..127, or an extension that returned no bytes. */
  INVALID_EXT: "INVALID_EXT",
  /** The output does not fit: a fixed target that is too small, or `maxByteLength` for `encodeInto`. */
  OUT_OF_SPACE: "OUT_OF_SPACE",
  /** A value that contains itself. */
  CYCLE: "CYCLE",
  /** A value that changed while it was being encoded (a `Map` or `Set` whose size changed, an array whose length changed). */
  CHANGED: "CHANGED",
  /** An argument that is not what the function takes, such as an invalid option. */
  INVALID_ARGUMENT: "INVALID_ARGUMENT",
} as const;

/** One of the {@link EncodeErrorCode} values. */
export type EncodeErrorCode = (typeof EncodeErrorCode)[keyof typeof EncodeErrorCode];

/**
 * Names `cls` as it is exported, in every build (a minifier renames the
 * class itself), and makes `instanceof cls` true for any object carrying
 * `cls`'s brand, so that an error (or `ExtData`) made by one copy of this
 * library (the ESM build, the CommonJS build, a browser bundle) is
 * recognised by another in the same process. Subclasses keep ordinary
 * `instanceof`.
 */
export function brand(cls: abstract new (...args: never[]) => object, name: string): void {
  const key = Symbol.for("@resizable/msgpack/" + name);
  Object.defineProperty(cls, "name", { value: name });
  Object.defineProperty(cls.prototype, key, { value: 1 });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: { prototype: object }, v: unknown): boolean {
      return this === cls ? (v as Record<symbol, unknown> | null)?.[key] === 1 : this.prototype.isPrototypeOf(v as object);
    },
  });
}

/**
 * Thrown by every decode function for malformed, truncated or over-limit
 * input. It is a `RangeError`, as the errors @msgpack/msgpack throws for
 * truncated input are, so code that catches either keeps working. `offset` is the byte position in the input where the problem was
 * found (for a truncated value, where the incomplete item starts).
 *
 * @example Catching a truncated input
 * ```ts
 * import { decode, DecodeError } from "@resizable/msgpack";
 * try {
 *   decode(new Uint8Array([0x92, 0x01])); // an array of 2 with 1 item
 * } catch (e) {
 *   if (!(e instanceof DecodeError)) throw e;
 *   console.assert(e.code === "TRUNCATED" && e.offset === 0 && e.needed === 1);
 * }
 * ```
 */
export class DecodeError extends RangeError {
  /** Byte offset in the input where the problem was found. */
  declare readonly offset: number;
  /** A stable code, one of {@link DecodeErrorCode}. */
  declare readonly code: DecodeErrorCode;
  /** For `TRUNCATED`: how many more bytes the item needs at least. */
  declare readonly needed: number;
  /** For `SCHEMA_MISMATCH`: the schema's issues, each with its message and the path of keys to the part of the value it is about. */
  declare readonly issues?: readonly SchemaIssue[];

  /**
   * @param message the message
   * @param offset where in the input (0 when not given)
   * @param code the code; `INVALID_EXT` when not given, for an extension
   *   decoder that throws `new DecodeError(message)` as with @msgpack/msgpack
   * @param needed for `TRUNCATED`: how many more bytes are needed at least
   */
  constructor(message: string, offset = 0, code: DecodeErrorCode = "INVALID_EXT", needed = 0) {
    super(message);
    this.name = "DecodeError";
    this.offset = offset;
    this.code = code;
    this.needed = needed;
  }
}
brand(DecodeError, "DecodeError");

/**
 * Thrown by every encode function for a value MessagePack cannot represent,
 * nesting past `maxDepth`, cycles, lengths past 2^32-1, or an output that
 * does not fit its target.
 *
 * @example Encoding a cycle
 * ```ts
 * import { encode, EncodeError } from "@resizable/msgpack";
 * const a: unknown[] = [];
 * a.push(a);
 * try {
 *   encode(a);
 * } catch (e) {
 *   console.assert(e instanceof EncodeError && e.code === "CYCLE");
 * }
 * ```
 */
export class EncodeError extends Error {
  /** A stable code, one of {@link EncodeErrorCode}. */
  declare readonly code: EncodeErrorCode;

  constructor(message: string, code: EncodeErrorCode) {
    super(message);
    this.name = "EncodeError";
    this.code = code;
  }
}
brand(EncodeError, "EncodeError");

// ---- the two ways a message is made: what could not be done, where, and why ----

/** A {@link DecodeError} about the `what` at `offset`, its message made from its fields: `Cannot decode <what> at offset <offset>: <reason>`. */
export const decodeAt = (what: string, offset: number, reason: string, code: DecodeErrorCode, needed = 0): DecodeError => new DecodeError(`Cannot decode ${what} at offset ${offset}: ${reason}`, offset, code, needed);

/** An {@link EncodeError} about `what`, its message made from its fields: `Cannot encode <what>: <reason>`. */
export const encodeAbout = (what: string, reason: string, code: EncodeErrorCode): EncodeError => new EncodeError(`Cannot encode ${what}: ${reason}`, code);

/** Builds an {@link EncodeError}. */
export const encodeError = (message: string, code: EncodeErrorCode): EncodeError => new EncodeError(message, code);

/** What an option of `side` used without the module it needs says: the import `entry` that installs that module. */
const needs = (side: string, option: string, entry: string): string => `The ${side} option ${option} needs its module: add import "${entry}" (once, anywhere in the program)`;

/** An encode `option` used without the module it needs: an `INVALID_ARGUMENT` that names the import `entry` (modules.ts). */
export const encodeNeeds = (option: string, entry: string): EncodeError => new EncodeError(needs("encode", option, entry), "INVALID_ARGUMENT");

/** A decode `option` used without the module it needs: an `INVALID_ARGUMENT` that names the import `entry` (modules.ts). */
export const decodeNeeds = (option: string, entry: string): DecodeError => new DecodeError(needs("decode", option, entry), 0, "INVALID_ARGUMENT");

// ---- decoder: the input ----

/** The input ends at `end` (`stream`: a stream that ended there) but the item starting at `start` needs `need` bytes from `start`. */
export function truncated(start: number, need: number, end: number, what: string, stream = false): DecodeError {
  const missing = start + need - end;
  return decodeAt(what, start, `insufficient data, input is ${missing} byte(s) short${stream ? ` (the stream ended at offset ${end})` : ""}`, "TRUNCATED", missing);
}

/** A container nested deeper than `maxDepth`, from the decoder and the stream scanner. */
export const tooDeepToDecode = (start: number, maxDepth: number): DecodeError => decodeAt("container", start, `too deep, deeper than maxDepth (${maxDepth})`, "MAX_DEPTH");

/**
 * A declared length past its `max*Length` limit. The message says "max
 * length exceeded", as @msgpack/msgpack's do, for programs that match it.
 */
export const overLimit = (what: string, start: number, n: number, limitName: string, max: number): DecodeError => decodeAt(what, start, `max length exceeded, length ${n} exceeds ${limitName} (${max})`, "MAX_LENGTH");

/** The type byte 0xc1, which MessagePack reserves, at `offset`. */
export const reservedByte = (offset: number): DecodeError => decodeAt("value", offset, "unrecognized type byte 0xc1 (reserved)", "INVALID_BYTE");

/** String bytes at `start` (the first byte of the string's payload) that are not UTF-8. */
export const invalidUtf8 = (start: number): DecodeError => decodeAt("string", start, "invalid UTF-8", "INVALID_UTF8");

/**
 * `n` bytes left over after a value that ended at `offset`, in a one-value
 * decode. `looks`: what the input looks like when it is no MessagePack at
 * all ({@link wrongInput}), named instead of pointing to `decodeMulti`.
 */
export const extraBytes = (offset: number, n: number, looks: string | null = null): DecodeError =>
  new DecodeError(`Cannot decode value: extra ${n} byte(s) at offset ${offset}; ${looks === null ? "see decodeMulti" : `the input looks like ${looks}, not MessagePack`}`, offset, "EXTRA_BYTES");

/**
 * What `input` looks like when it is a common kind of data that is not
 * MessagePack, else null: gzip or zstd data (by their magic numbers),
 * msgpackr's records (its structure extension, type 0x72, first), HTML or
 * XML, JSON text, or other text (the first 64 bytes all printable UTF-8).
 * Such inputs almost always decode as a small integer followed by "extra
 * bytes", which would point to `decodeMulti` for no reason.
 */
export function wrongInput(input: Uint8Array, failedAt = 0): string | null {
  const n = input.length;
  const b0 = input[0];
  if (b0 === 0x1f && input[1] === 0x8b) return "gzip data";
  if (b0 === 0x28 && input[1] === 0xb5 && input[2] === 0x2f && input[3] === 0xfd) return "zstd data";
  // msgpackr's records start with the extension that defines a structure: fixext 1 (or ext 8) of type 0x72
  if ((b0 === 0xd4 && input[1] === 0x72) || (b0 === 0xc7 && input[2] === 0x72) || declaresRecords(input, failedAt)) return "msgpackr records (decode them with useRecords: true, from \"@resizable/msgpack/records\")";
  let i = 0;
  if (b0 === 0xef && input[1] === 0xbb && input[2] === 0xbf) i = 3; // a UTF-8 byte order mark
  const end = Math.min(n, i + 64);
  let first = -1; // the first character that is not white space
  for (; i < end; i++) {
    const c = input[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c < 0x20 || c === 0x7f) return null; // not text
    if (first < 0) first = c;
  }
  if (first === 0x3c) return "HTML or XML text"; // <
  if (first === 0x7b || first === 0x5b || first === 0x22) return "JSON text"; // { [ "
  return n >= 8 ? "text" : null;
}

/**
 * Whether `input`, up to a few bytes past `failedAt` (and at most its first
 * 64 KiB), holds a msgpackr record declaration: a fixext 1 of type 0x72
 * with an identifier 0x40-0x7f (or a fixext 2 with 0x60-0x7f and a second
 * byte), followed by the array header of its field names. Read as plain
 * MessagePack, such records end early (arrays of rows too), and the
 * failure comes after the declaration.
 */
function declaresRecords(input: Uint8Array, failedAt: number): boolean {
  const end = Math.min(input.length - 4, failedAt + 4, 65_536);
  for (let i = 0; i < end; i++) {
    if (input[i + 1] !== 0x72) continue;
    const t = input[i]!;
    const id = input[i + 2]!;
    const names = t === 0xd4 ? input[i + 3]! : t === 0xd5 ? input[i + 4]! : 0;
    if (id >= (t === 0xd4 ? 0x40 : 0x60) && id < 0x80 && ((names >= 0x90 && names <= 0x9f) || names === 0xdc || names === 0xdd)) return true;
  }
  return false;
}

// ---- decoder: arguments, options, map keys, extensions, the call stack ----

/** An argument or option of a decode function that is not what it takes, shown as {@link describe} shows values (`offset`: the offending offset, else 0). */
export const badArgument = (what: string, value: unknown, expected: string, offset = 0): DecodeError => new DecodeError(`Cannot decode: ${what} is ${describe(value)}, not ${expected}`, offset, "INVALID_ARGUMENT");

/** A decode option (or the options argument, `name` "options") whose value is not what it takes. */
export const invalidDecodeOption = (name: string, value: unknown, expected: string): DecodeError => badArgument(name === "options" ? "the options argument" : `option ${name}`, value, expected);

/**
 * An input whose buffer shrank (a resizable `ArrayBuffer` resized, or a
 * buffer detached) while user code ran during the decode (an extension
 * decoder, a `mapKeyConverter`): it holds `length` bytes, no longer the
 * message's bytes up to `end`, and the value at `offset` cannot be read.
 */
export const inputShrank = (offset: number, end: number, length: number): DecodeError => decodeAt("value", offset, `the input shrank to ${length} bytes, short of offset ${end}, while it was decoded`, "INVALID_ARGUMENT");

/** A map key that `mapKeyConverter` turned into something other than a string or number. */
export const badKey = (offset: number, key: unknown): DecodeError => decodeAt("map key", offset, `mapKeyConverter returned ${key === null ? "null" : typeof key}, not a string or number`, "INVALID_KEY");

/**
 * For an extension call's `catch`: what the decoder around reports for an
 * error thrown by the decoder of the extension of `type` whose header is at
 * `at` (counted in the user's input). A `TRUNCATED` DecodeError (its
 * decoder decoded a payload that ends inside a value) becomes
 * `INVALID_EXT` at the extension, with the error as its `cause`: the outer
 * input is complete there, and a stream decoder must not wait for bytes
 * that cannot help. Anything else is returned unchanged (a decode of the
 * payload view counts its offsets in the user's input already).
 */
export const fromExtension = (e: unknown, type: number, at: number): unknown =>
  // the cause non-enumerable, as `new Error(message, { cause })` sets it
  e instanceof DecodeError && e.code === "TRUNCATED" ? Object.defineProperty(decodeAt(`extension type ${type}`, at, "its decoder failed", "INVALID_EXT"), "cause", { value: e, writable: true, configurable: true }) : e;

/** `e` unchanged, unless it is the engine's stack overflow ({@link isEngineStackOverflow}): then a `MAX_DEPTH` DecodeError for nesting deeper than the call stack allows. */
export const stackOverflow = (e: unknown, offset: number): unknown =>
  !(e instanceof DecodeError) && isEngineStackOverflow(e) ? decodeAt("container", offset, "nested too deep for the call stack", "MAX_DEPTH") : e;

/**
 * Whether `e` is the engine's "out of call stack" error (V8 and
 * JavaScriptCore: RangeError "Maximum call stack size exceeded";
 * SpiderMonkey: InternalError "too much recursion"): the one place that
 * reads an engine's message. Callers exclude their own errors, whose
 * messages may name the call stack.
 */
export function isEngineStackOverflow(e: unknown): boolean {
  // no RegExp here: this runs near the stack limit, where V8 may compile one
  // (a regexp tiering up to native code) and fails fatally ("RegExpCompiler
  // Allocation failed - process out of memory") instead of throwing
  let message: unknown;
  return e instanceof Error && typeof (message = e.message) === "string" && (message.includes("call stack") || message.includes("recursion"));
}

/**
 * The `TypeError` a stream function (`decodeAsync`, `decodeStream`...) rejects
 * with when given `stream`, which is neither a ReadableStream nor an
 * AsyncIterable: the kind of error @msgpack/msgpack's stream functions and
 * the engine's `for await` give for it.
 */
export const notAStream = (stream: unknown): TypeError => new TypeError(`Cannot decode a stream of ${stream === null ? "null" : typeof stream}: expected a ReadableStream or an AsyncIterable of Uint8Array`);

// ---- decoder: the schema option's verdicts ----

/**
 * The `SCHEMA_MISMATCH` error for the value at `offset`, which the schema
 * refused with `issues` (a Standard Schema's, as its validator gave them):
 * the message names the first five, each as its path (`$.items[2].id`) and
 * its message, quoted and escaped, as every text that comes from outside
 * is (a path key from the decoded bytes, a message that quotes the value);
 * the error's `issues` hold them all, as plain data.
 */
export function schemaMismatch(offset: number, issues: unknown): DecodeError {
  // plain arrays (Array.from), whatever classes the validator's arrays are of (arktype's paths carry a cache)
  const list = Array.from(Array.isArray(issues) ? issues : [], (issue: { message?: unknown; path?: unknown } | null): SchemaIssue => ({
    message: typeof issue?.message === "string" ? issue.message : describe(issue?.message),
    path: Array.isArray(issue?.path) ? Array.from(issue.path, (p: unknown) => (typeof p === "object" && p !== null ? (p as { key: PropertyKey }).key : (p as PropertyKey))) : [],
  }));
  const shown = list.slice(0, 5).map((issue) => `${issuePath(issue.path)}: ${quote(issue.message, 200)}`);
  if (list.length > 5) shown.push(`and ${list.length - 5} more`);
  return Object.assign(decodeAt("value", offset, `it does not match the schema (${list.length} issue(s)): ${shown.join("; ")}`, "SCHEMA_MISMATCH"), { issues: list });
}

/** A schema whose validator returned a Promise, in a call that cannot wait for it (`decode`, `decodeMulti`), for the value at `offset`. */
export const asyncSchema = (offset: number): DecodeError =>
  decodeAt("value", offset, "the schema validates asynchronously (its validate returned a Promise); decode with decodeAsync, decodeMultiStream, decodeArrayStream or DecoderStream, which wait for it", "INVALID_ARGUMENT");

/** `$` and the keys of `path` (`$.a[2]["b c"]`); a long path is shortened in the middle. */
function issuePath(path: readonly PropertyKey[]): string {
  const s = path.map((k) =>
    typeof k === "string" ? (/^[A-Za-z_$][\w$]*$/.test(k) ? "." + k : `[${quote(k, 40)}]`) : typeof k === "symbol" ? `[Symbol(${quote(k.description ?? "", 40)})]` : `[${describe(k)}]`,
  );
  return "$" + (s.length <= 12 ? s.join("") : `${s.slice(0, 4).join("")}...(${s.length - 10} more)...${s.slice(-6).join("")}`);
}

/**
 * `text` cut at `max` characters, quoted as `JSON.stringify` quotes it
 * (control characters escaped), with the C1 controls (U+0080-U+009F, which
 * some terminals obey), DEL and the line and paragraph separators escaped
 * too: no text from outside reaches a terminal or a log unescaped.
 */
const quote = (text: string, max: number): string =>
  JSON.stringify(text.length > max ? text.slice(0, max) + "..." : text).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** A short, never-throwing text for a value in a message of either direction: strings quoted (cut at 40 characters), bigints with their `n`, objects by their tag. */
function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "..." : value);
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === "object" && value !== null) return Object.prototype.toString.call(value);
  return typeof value === "function" ? "a function" : String(value);
}

// ---- encoder: the walk's errors, placed at the path of the value as the walk unwinds ----

/**
 * What an error of the walk is made from, until the walk has unwound and
 * knows its path (see {@link walkError}): what could not be encoded
 * ("function", "Map", "value"...), why, and the value at fault (for
 * `MAX_DEPTH`, the walk tells a cycle from deep nesting by it).
 */
export type WalkProblem = { readonly subject: string; readonly reason: string; readonly value: unknown };

/** The key of a walk error's fields on the error itself, until the walk has placed it at its path (no table outside the error). */
const PROBLEM: unique symbol = Symbol("unplaced");

/**
 * An `EncodeError` about `value`, thrown where the walk finds the
 * problem: `Cannot encode <subject> at <path>: <reason>`, its path (`$`
 * until then) given by {@link placeAt} once the error has unwound through
 * every container, each noting its segment.
 */
const walkError = (code: EncodeErrorCode, subject: string, reason: string, value: unknown): EncodeError =>
  Object.defineProperty(encodeAbout(`${subject} at $`, reason, code), PROBLEM, { value: { subject, reason, value }, configurable: true });

/** The problem of `e` when it is an error of the walk not yet placed at its path; else undefined. */
export const problemOf = (e: unknown): WalkProblem | undefined => (e instanceof EncodeError ? (e as { [PROBLEM]?: WalkProblem })[PROBLEM] : undefined);

/** `e`, an error of {@link walkError}, with its message made from its fields and its `path` (`$.a[2]`). */
export function placeAt(e: EncodeError, path: string): EncodeError {
  const p = problemOf(e)!;
  delete (e as { [PROBLEM]?: WalkProblem })[PROBLEM];
  e.message = `Cannot encode ${p.subject} at ${path}: ${p.reason}`;
  return e;
}

/** A value MessagePack cannot hold (and no extension claimed). */
export const unsupported = (value: unknown): EncodeError => walkError("UNSUPPORTED_TYPE", typeof value, "unrecognized object", value);

/** An object found at `depth`, nested past `maxDepth` (or in a cycle: the walk tells which once it has unwound). */
export const tooDeep = (value: unknown, depth: number, maxDepth: number): EncodeError => walkError("MAX_DEPTH", "value", `too deep objects in depth ${depth + 1} (maxDepth ${maxDepth})`, value);

/** A `what` (Map, Set, array), `container`, whose count changed while it was being encoded. */
export const changed = (container: object, what: string, before: unknown, after: unknown): EncodeError =>
  walkError("CHANGED", what, `it changed while being encoded (${String(before)} entries, then ${String(after)})`, container);

/** A `what`, `container`, whose size or iterator cannot be read (a Proxy around a Map, say); `cause` is the error that reading threw. */
export const unreadable = (container: object, what: string, cause: unknown): EncodeError =>
  Object.assign(walkError("UNSUPPORTED_TYPE", what, `its entries cannot be read (${describe(cause)})`, container), { cause });

/** The `TypeError` the engine's `for...of` gives for an iterator without `next()`: the `cause` of {@link unreadable} for such a `Map`. */
export const iteratorWithoutNext = (): TypeError => new TypeError("its iterator has no next()");

/** Nesting that ran out of call stack before reaching `maxDepth`. */
export const outOfStack = (maxDepth: number): EncodeError => encodeAbout("value", `too deep objects for the call stack (maxDepth ${maxDepth}; lower it)`, "MAX_DEPTH");

/**
 * A value that contains itself; `where` (main encoder) says where: " at
 * $.a.b (the object at $.a)". The words "too deep" are those of
 * @msgpack/msgpack's error for a cycle, for programs that match them.
 */
export const cycle = (where = ""): EncodeError => encodeAbout(`value${where}`, "it contains itself (a cycle), too deep to encode", "CYCLE");

// ---- encoder: values, counts, extensions, arguments ----

/** A bigint past int 64 / uint 64. */
export const bigintOutOfRange = (n: bigint): EncodeError => encodeAbout(`bigint ${n}`, "outside int64/uint64", "BIGINT_RANGE");

/** A string, binary, array, map or extension longer than MessagePack can declare. */
export const tooLong = (what: string, n: number): EncodeError => encodeAbout(`${what} of length ${n}`, "over 2^32-1", "TOO_LONG");

/** A length or size that is no count MessagePack can declare: past 2^32-1 (TOO_LONG), or not an integer (a Proxy or subclass that lies, CHANGED). */
export const badCount = (what: string, n: number): EncodeError => (Number.isInteger(n) && n > 0 ? tooLong(what, n) : encodeAbout(what, `it reports ${describe(n)} items, not a count`, "CHANGED"));

/** A binary whose `ArrayBuffer` was detached (transferred away): it has no bytes left to write. */
export const detachedBinary = (what: string): EncodeError => encodeAbout(`${what} that was detached (transferred)`, "it has no bytes", "INVALID_ARGUMENT");

/** An extension type outside -128..127, when encoding (`verb` "encode") or registering it. */
export const badExtType = (type: number, verb = "encode"): EncodeError => encodeError(`Cannot ${verb} extension type ${type}: not an integer in -128..127`, "INVALID_EXT");

/** An argument of `ExtensionCodec.register` (`what`: "the argument", "encode of type 1") that is not what it takes. */
export const badExtension = (what: string, value: unknown): EncodeError =>
  encodeError(`Cannot register extension: ${what} is ${describe(value)}, not ${what === "the argument" ? "an object { type, encode, decode }" : "a function"}`, "INVALID_EXT");

/** An extension encoder that returned something other than bytes. */
export const badExtPayload = (type: number): EncodeError => encodeAbout(`extension type ${type}`, "encode must return bytes, a function or null", "INVALID_EXT");

/** A codec object's `tryToEncode` that returned something other than an `ExtData` or null. */
export const badCodecResult = (result: unknown): EncodeError => encodeAbout("with the extensionCodec", `tryToEncode returned ${describe(result)}, not an ExtData or null`, "INVALID_EXT");

/** An argument of an encode method that is not what it takes, shown as {@link describe} shows values. */
export const badEncodeArgument = (what: string, value: unknown, expected: string): EncodeError => encodeError(`Cannot encode: ${what} is ${describe(value)}, not ${expected}`, "INVALID_ARGUMENT");

/** An encode option whose value is not what it takes. */
export const invalidEncodeOption = (name: string, value: unknown, expected: string): EncodeError => encodeError(`Invalid encode option ${name}: ${describe(value)} (expected ${expected})`, "INVALID_ARGUMENT");
