/**
 * The decoder's side of msgpackr's record extension: the table of record
 * structures a message (or a stream) has defined, the shared structures
 * of the `structures` option, and the errors records can raise.
 *
 * The format (msgpackr's "Record Structure Extension Definition"): the
 * extension type 0x72 ("r") with a 1-byte payload, an identifier from
 * 0x40-0x7f, declares a structure; an array of its field names follows,
 * then the field values of a first record. Later, the identifier byte
 * where a value is expected starts a record: the field values follow in
 * order. Identifiers 0x60-0x7f may take a second byte (a "high byte") for
 * up to 8,160 shared structures: a fixext 2 declaration (0xd5 0x72 id high)
 * defines such a structure, and a shared structure at index 32 or more is
 * one; the identifier of index i is then 0x60 + (i & 31), then (i - 32) >> 5.
 *
 * Spec: https://github.com/kriszyp/msgpackr#record-structure-extension-definition
 *
 * @module
 */

import { badArgument, type DecodeError, decodeError } from "../common/errors.ts";
import { isFieldNames, MAX_SHARED_STRUCTURES } from "../format/records.ts";

export { RECORD_EXT_TYPE } from "../format/records.ts";

/** How many structures a {@link RecordTable} keeps by their names: more than any program declares. */
const STRUCTURE_CACHE_ENTRIES = 1024;

/**
 * How many characters of field names a {@link RecordTable} keeps in its
 * cache at most (about 128 KiB, with a node per name): past it the cache starts
 * over, and a structure whose names alone are longer is never kept, so
 * hostile declarations of huge names cost their message, not the program.
 */
const STRUCTURE_CACHE_CHARS = 65_536;

/** A record structure: its field names in order, and whether its identifier takes a second byte. */
export interface Structure {
  readonly keys: readonly string[];
  readonly twoByte: boolean;
  /** Whether a field is named `__proto__` (set as an own property, as `JSON.parse` does). */
  readonly proto: boolean;
  readonly make: new () => object;
  /** Records read with it so far, until its reader is compiled (see read.ts). */
  reads: number;
  /** Its compiled reader, or null: not compiled (yet, or ever). */
  compiled: ((d: never, depth: number) => Record<string, unknown>) | null;
}

/** A node of the structure cache's trie: the path from the root spells field names; the structures of those names, by identifier width. */
interface StructureNode {
  next: Map<string, StructureNode> | null;
  one: Structure | undefined;
  two: Structure | undefined;
}

function newStructureNode(): StructureNode {
  return { next: null, one: undefined, two: undefined };
}

/**
 * A constructor of plain objects (their prototype is `Object.prototype`)
 * of its own: each gets an initial map of its own in V8, sized by slack
 * tracking to the fields its objects end up with.
 */
function plainMaker(): new () => object {
  function PlainRecord(): void {}
  PlainRecord.prototype = Object.prototype;
  return PlainRecord as unknown as new () => object;
}

/**
 * The structures in force while one message (or, sequentially, one
 * stream) is read. Slot i holds the structure of index i (identifier
 * 0x40 + i, or two bytes from index 32 up). Definitions read in a message
 * replace a slot until the next {@link begin}; in sequential use they
 * persist, and those of a value that failed (a stream value cut short,
 * read again once more bytes arrive) are undone by {@link rollback}.
 */
export class RecordTable {
  /** The structure of each index: the shared ones, then what definitions replaced. */
  slots: (Structure | undefined)[] = [];
  /** The user's `structures` array, or null. */
  readonly #shared: readonly unknown[] | null;
  /** Its length when its structures were loaded into `slots`. */
  #sharedSeen = -1;
  /**
   * The definitions to undo: slot, previous structure, slot, previous
   * structure... since the last {@link commit} (a sequence), or since
   * {@link begin} (a message: those are never committed, so begin undoes
   * the last message's).
   */
  readonly #undo: unknown[] = [];

  /**
   * Structures (shared ones too) by their field names and identifier width, so that a shape
   * declared again (by every message of a stream of separate messages)
   * gets the same constructor and compiled reader, and so the same object
   * layout, each time: a new constructor per declaration made each record
   * a new map, and decoding small messages with records 5x slower. A trie
   * of the names (a lookup per name, no key string built: building one
   * took a third of the time of decoding small messages), emptied when it
   * holds {@link STRUCTURE_CACHE_ENTRIES} structures or
   * {@link STRUCTURE_CACHE_CHARS} characters of names, so hostile
   * declarations cost only their bytes.
   */
  #known: StructureNode = newStructureNode();
  #knownEntries = 0;
  /** The characters of the names in {@link #known}'s nodes. */
  #knownChars = 0;

  /** Whether records of a structure read often get a compiled reader (the decode option `compileRecordReaders`). */
  readonly compile: boolean;

  /**
   * @param shared the `structures` option (msgpackr's shape: arrays of field names), or null
   * @param compile the decode option `compileRecordReaders`
   */
  constructor(shared: readonly unknown[] | null, compile: boolean) {
    this.#shared = shared;
    this.compile = compile;
  }

  /** The structure of `keys` (read from a declaration, or a shared one), the same object for the same names. */
  structure(keys: string[], twoByte: boolean): Structure {
    const n = keys.length;
    let node: StructureNode | undefined = this.#known;
    for (let i = 0; i < n && node !== undefined; i++) node = node.next?.get(keys[i]!);
    const found = node === undefined ? undefined : twoByte ? node.two : node.one;
    if (found !== undefined) return found;
    const s: Structure = { keys, twoByte, proto: keys.includes("__proto__"), make: plainMaker(), reads: 0, compiled: null };
    let chars = 0;
    for (let i = 0; i < n; i++) chars += keys[i]!.length + 1;
    if (chars > STRUCTURE_CACHE_CHARS) return s; // kept by its message only
    if (this.#knownEntries >= STRUCTURE_CACHE_ENTRIES || this.#knownChars + chars > STRUCTURE_CACHE_CHARS) {
      this.#known = newStructureNode();
      this.#knownEntries = this.#knownChars = 0;
    }
    let at: StructureNode = this.#known;
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      const next: Map<string, StructureNode> = at.next ?? (at.next = new Map());
      let child: StructureNode | undefined = next.get(key);
      if (child === undefined) {
        next.set(key, (child = newStructureNode()));
        this.#knownChars += key.length + 1;
      }
      at = child;
    }
    if (twoByte) at.two = s;
    else at.one = s;
    this.#knownEntries++;
    return s;
  }

  /**
   * Starts a message (or a stream): only the shared structures are
   * defined, index i in slot i (two-byte from index 32), reloaded if the
   * array's length changed.
   */
  begin(): void {
    this.rollback();
    const shared = this.#shared;
    if (shared === null || shared.length === this.#sharedSeen) return;
    const n = shared.length;
    if (n > MAX_SHARED_STRUCTURES) throw badArgument("option structures", `${n} structures`, `at most ${MAX_SHARED_STRUCTURES} structures`);
    this.slots = Array.from(shared, (keys, i) => {
      if (keys == null) return undefined; // a hole: that identifier stays undefined
      if (!isFieldNames(keys)) throw badArgument(`option structures[${i}]`, keys, "an array of field names (strings)");
      return this.structure(keys.slice(), i >= 32);
    });
    this.#sharedSeen = n;
  }

  /** Defines slot `at` (0 to 8223). */
  define(at: number, structure: Structure): void {
    this.#undo.push(at, this.slots[at]);
    this.slots[at] = structure;
  }

  /** Keeps the definitions made since the last commit (a value was read whole). */
  commit(): void {
    if (this.#undo.length !== 0) this.#undo.length = 0;
  }

  /** Undoes the definitions made since the last commit (the value failed), or since {@link begin}. */
  rollback(): void {
    const undo = this.#undo;
    for (let i = undo.length - 2; i >= 0; i -= 2) this.slots[undo[i] as number] = undo[i + 1] as Structure | undefined;
    undo.length = 0;
  }
}

/** A reference to an identifier that no structure was defined for. */
export function undefinedRecord(offset: number, first: number, index: number): DecodeError {
  const high = index === first - 0x40 ? "" : ` (high byte ${(index - first + 0x40) >> 5})`;
  return decodeError(`Cannot decode record at offset ${offset}: no record structure for identifier 0x${first.toString(16)}${high}`, offset, "INVALID_BYTE");
}

/** A record definition whose identifier byte is out of its range (0x40-0x7f, or 0x60-0x7f with a high byte). */
export function badRecordId(offset: number, id: number): DecodeError {
  return decodeError(`Cannot decode record definition at offset ${offset}: identifier 0x${id.toString(16)} out of range`, offset, "INVALID_BYTE");
}

/** A record definition not followed by an array of field names. */
export function noFieldNames(offset: number, byte: number): DecodeError {
  return decodeError(`Cannot decode record definition at offset ${offset}: type byte 0x${byte.toString(16)} where an array of field names must be`, offset, "INVALID_EXT");
}

/** A field name that is neither a string nor a number. */
export function badFieldName(offset: number, key: unknown): DecodeError {
  return decodeError(`Cannot decode record field name at offset ${offset}: ${key === null ? "null" : typeof key}, not a string or number`, offset, "INVALID_KEY");
}
