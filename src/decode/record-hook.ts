/**
 * The contract between the decoder and the records module
 * (`@resizable/msgpack/records`): what the decoder calls where a byte
 * starts a record or a structure declaration ({@link RecordDecoding}, which
 * reads through the decoder's {@link Cursor}), and the table of structures
 * in force ({@link RecordState}). Types only, and the lookup of the
 * installed module: neither side imports the other.
 *
 * @module
 */

import { decodeNeeds } from "../common/errors.ts";
import { modules } from "../common/modules.ts";
import type { Cursor } from "./cursor.ts";

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
 * What a decoder with `useRecords` gets from the records module
 * (`@resizable/msgpack/records`, which installs it): the decoder calls it
 * where a byte starts a record or a structure declaration, and knows no
 * more of the record format.
 */
export interface RecordDecoding {
  /** A table of structures, with the `structures` option's shared ones (null: none); `compile`: the option `compileRecordReaders`. */
  table(structures: readonly unknown[] | null, compile: boolean): RecordState;
  /** The record whose identifier's first byte `t` (0x40-0x7f) is at `start`, the cursor just after it, read with the structures of `records`. */
  record(d: Cursor, records: RecordState, t: number, depth: number, start: number): unknown;
  /** The structure declaration at `start` (a fixext 1, or with `twoByte` a fixext 2, of type 0x72), defined in `records`, and the record after it, the cursor just after its first byte. */
  definition(d: Cursor, records: RecordState, twoByte: boolean, depth: number, start: number): unknown;
}

/** The records module's decoding side, or an `INVALID_ARGUMENT` naming its import when it was not imported. */
export function recordDecoding(option: string): RecordDecoding {
  const installed = modules.records as { readonly decoding: RecordDecoding } | undefined;
  if (installed === undefined) throw decodeNeeds(option, "@resizable/msgpack/records");
  return installed.decoding;
}
