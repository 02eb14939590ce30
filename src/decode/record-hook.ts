/**
 * The contract between the decoder and the records module
 * (`@resizable/msgpack/records`): what the decoder calls where a byte
 * starts a record or a structure declaration ({@link RecordDecoding}), what
 * the records module reads records with ({@link DecodeCursor}, which the
 * decoder implements), and the table of structures in force
 * ({@link RecordState}). Types only, and the lookup of the installed
 * module: neither side imports the other.
 *
 * @module
 */

import type { DecodeError } from "../common/errors.ts";
import type { DecodeLimits } from "../common/limits.ts";
import { modules, needModule } from "../common/modules.ts";
import type { TextWindow } from "./text-window.ts";

/** The record structures in force while a message (or a sequence of values) is read: what the decoder and the stream decoders need of them. */
export interface RecordState {
  /** The structure of each slot (identifier 0x40 + slot, two-byte from 32 up): its field names, and whether its identifier takes a second byte. */
  readonly slots: readonly ({ readonly keys: readonly string[]; readonly twoByte: boolean } | undefined)[];
  /** Starts a message or a sequence: only the shared structures are defined. */
  begin(): void;
  /** Keeps the definitions of a value read whole. */
  commit(): void;
  /** Undoes the definitions made since the last commit (a value that failed, or a message that ended). */
  rollback(): void;
}

/**
 * What the records module reads records with: a decoder's input and
 * position, its limits and settings, and its readers of values, keys and
 * headers (the members the decoder class keeps out of its published declarations).
 */
export interface DecodeCursor {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;
  /** The offset of `bytes[0]` in the user's input, added to error offsets. */
  readonly base: number;
  /** Strings decode straight, else through {@link DecodeCursor.textAt}. */
  readonly direct: boolean;
  /** The longest string value decoded as text (-1 with `rawStrings`). */
  readonly strMax: number;
  readonly limits: DecodeLimits;
  /** The record structures in force for the call under way. */
  readonly records: RecordState | null;
  readValue(depth: number): unknown;
  readKey(depth: number): unknown;
  readLengthField(field: number, start: number): number;
  need(n: number, start: number, what?: string): number;
  short(start: number, need: number, what: string): DecodeError;
  textAt(at: number, n: number, key: boolean): string;
  /** Reads the strings of an input without a base (see text-window.ts). */
  readonly window: TextWindow;
}

/**
 * What a decoder with `useRecords` gets from the records module
 * (`@resizable/msgpack/records`, which installs it): the decoder calls it
 * where a byte starts a record or a structure declaration, and knows no
 * more of the record format. Its readers work on the decoder's state, the
 * members its class keeps out of its published declarations.
 */
export interface RecordDecoding {
  /** A table of structures, with the `structures` option's shared ones (null: none); `compile`: the option `compileRecordReaders`. */
  table(structures: readonly unknown[] | null, compile: boolean): RecordState;
  /** The record whose identifier's first byte `t` (0x40-0x7f) is at `start`, the decoder's position just after it. */
  record(d: DecodeCursor, t: number, depth: number, start: number): unknown;
  /** The structure declaration at `start` (a fixext 1, or with `twoByte` a fixext 2, of type 0x72) and the record after it, the decoder's position just after its first byte. */
  definition(d: DecodeCursor, twoByte: boolean, depth: number, start: number): unknown;
}

/** The records module's decoding side, or an `INVALID_ARGUMENT` naming its import when it was not imported. */
export function recordDecoding(option: string): RecordDecoding {
  const installed = modules.records as { readonly decoding: RecordDecoding } | undefined;
  if (installed === undefined) throw needModule(option, "@resizable/msgpack/records", "decode");
  return installed.decoding;
}
