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

import { badArgument, type DecodeError, decodeAt } from "../common/errors.ts";
import { isFieldNames, MAX_SHARED_STRUCTURES, RECORD_EXT_TYPE } from "../format/records.ts";

export { RECORD_EXT_TYPE } from "../format/records.ts";

/**
 * What the structure cache of a {@link RecordTable} may hold, in about the
 * bytes its entries keep alive: each costs the bytes of its declaration's
 * field names (kept to compare), {@link NAME_COST} per field (its name
 * string and the word that points to it) and {@link ENTRY_COST} (the
 * structure, its constructor). Past it the cache starts over. So whatever
 * messages declare, a table keeps at most about this much past them, and
 * 64 decoders (one per call `context`) 64 times this.
 */
const STRUCTURE_CACHE_COST = 262_144;
/** The most one structure may cost to be cached (see {@link STRUCTURE_CACHE_COST}); a larger one is kept by its message only. */
const STRUCTURE_MAX_COST = 65_536;
/** What a field name costs in a cached structure besides its bytes: a string of its own (about 24 bytes in V8) and a pointer to it. */
const NAME_COST = 32;
/** What a cached structure costs besides its names: the structure object, its constructor and the maps V8 makes for its objects (about 430 bytes measured), its slot. */
const ENTRY_COST = 512;
/** Slots of the structure cache (a power of two), in pairs: two structures of one hash both stay. */
const CACHE_SLOTS = 1024;

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
  /** For a cached structure: the bytes of its declaration's array of field names, which find it again; else null. */
  readonly names: Uint8Array | null;
}

/** A new structure of `keys` (`names`: the bytes it is cached by, or null). */
function newStructure(keys: readonly string[], twoByte: boolean, names: Uint8Array | null): Structure {
  return { keys, twoByte, proto: keys.includes("__proto__"), make: plainMaker(), reads: 0, compiled: null, names };
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
  slots: (Structure | undefined)[];
  /** Whether records of a structure read often get a compiled reader (the decode option `compileRecordReaders`). */
  readonly compile: boolean;
  /** The user's `structures` array, or null. */
  private readonly shared: readonly unknown[] | null;
  /** Its length when its structures were loaded into `slots`. */
  private sharedSeen: number;
  /**
   * The definitions to undo: slot, previous structure, slot, previous
   * structure... since the last {@link commit} (a sequence), or since
   * {@link begin} (a message: those are never committed, so begin undoes
   * the last message's).
   */
  private readonly undo: unknown[];
  /**
   * Structures read from declarations, by the bytes of their field names,
   * so that a shape declared again (by every message of a stream of
   * separate messages) gets the same constructor and compiled reader, and
   * so the same object layout, each time: a new constructor per
   * declaration made each record a new map, and decoding small messages
   * with records 5x slower. Slots chosen by a hash of the bytes (seeded per
   * table, so no input can aim at one slot), two per hash; made on first
   * use, and started over past {@link STRUCTURE_CACHE_COST}.
   */
  private known: (Structure | undefined)[] | null;
  private knownCost: number;
  private readonly seed: number;

  /**
   * @param shared the `structures` option (msgpackr's shape: arrays of field names), or null
   * @param compile the decode option `compileRecordReaders`
   */
  constructor(shared: readonly unknown[] | null, compile: boolean) {
    this.slots = [];
    this.compile = compile;
    this.shared = shared;
    this.sharedSeen = -1;
    this.undo = [];
    this.known = null;
    this.knownCost = 0;
    this.seed = (Math.random() * 0x100000000) | 0;
  }

  /** A structure of `keys`, uncached (the inspector's, and the shared ones). */
  structure(keys: string[], twoByte: boolean): Structure {
    return newStructure(keys, twoByte, null);
  }

  /**
   * The structure a declaration declares: `keys`, read from the `n` bytes
   * at `at` of `bytes` (its array of field names). The same object for the
   * same bytes while the cache keeps it; a structure of more than
   * {@link STRUCTURE_MAX_COST} is never cached.
   */
  declared(keys: string[], twoByte: boolean, bytes: Uint8Array, at: number, n: number): Structure {
    const cost = n + NAME_COST * keys.length + ENTRY_COST;
    if (cost > STRUCTURE_MAX_COST) return newStructure(keys, twoByte, null);
    let h = this.seed ^ (twoByte ? 0x5bd1e995 : 0);
    for (let i = 0; i < n; i++) h = Math.imul(h ^ bytes[at + i]!, 0x01000193);
    let slot = (Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0) & (CACHE_SLOTS - 2);
    let known = this.known;
    if (known !== null) {
      for (let k = slot; k <= slot + 1; k++) {
        const s = known[k];
        // the same bytes of field names (a structure in the cache always has them)
        if (s !== undefined && s.twoByte === twoByte && s.names!.length === n && s.names!.every((v, i) => v === bytes[at + i])) return s;
      }
    }
    if (known === null || this.knownCost + cost > STRUCTURE_CACHE_COST) {
      known = this.known = new Array<Structure | undefined>(CACHE_SLOTS);
      this.knownCost = 0;
    }
    if (known[slot] !== undefined) slot++; // the first of the pair stays, unless it is empty
    const s = newStructure(keys, twoByte, bytes.slice(at, at + n));
    known[slot] = s;
    this.knownCost += cost;
    return s;
  }

  /**
   * Starts a message (or a stream): only the shared structures are
   * defined, index i in slot i (two-byte from index 32), reloaded if the
   * array's length changed (an entry whose names did not change keeps its
   * structure).
   */
  begin(): void {
    this.rollback();
    const shared = this.shared;
    if (shared === null || shared.length === this.sharedSeen) return;
    const n = shared.length;
    if (n > MAX_SHARED_STRUCTURES) throw badArgument("option structures", `${n} structures`, `at most ${MAX_SHARED_STRUCTURES} structures`);
    const before = this.slots;
    this.slots = Array.from(shared, (keys, i) => {
      if (keys == null) return undefined; // a hole: that identifier stays undefined
      if (!isFieldNames(keys)) throw badArgument(`option structures[${i}]`, keys, "an array of field names (strings)");
      const old = before[i];
      return old !== undefined && old.keys.length === keys.length && old.keys.every((k, j) => k === keys[j]) ? old : newStructure(keys.slice(), i >= 32, null);
    });
    this.sharedSeen = n;
  }

  /** Defines slot `at` (0 to 8223). */
  define(at: number, structure: Structure): void {
    this.undo.push(at, this.slots[at]);
    this.slots[at] = structure;
  }

  /** Keeps the definitions made since the last commit (a value was read whole). */
  commit(): void {
    if (this.undo.length !== 0) this.undo.length = 0;
  }

  /** Undoes the definitions made since the last commit (the value failed), or since {@link begin}. */
  rollback(): void {
    const undo = this.undo;
    for (let i = undo.length - 2; i >= 0; i -= 2) this.slots[undo[i] as number] = undo[i + 1] as Structure | undefined;
    undo.length = 0;
  }
}

// ---- what the bytes of records mean, for every reader of them (the decoder's, the inspector's) ----

/** Whether the bytes at `p` of `b` start a structure declaration: a fixext 1 or 2 (0xd4, 0xd5) of type 0x72. */
export const declaresAt = (b: Uint8Array, p: number): boolean => (b[p] === 0xd4 || b[p] === 0xd5) && b[p + 1] === RECORD_EXT_TYPE;

/** Whether the structure in `slots` of a record's identifier first byte `t` (0x40-0x7f) is a two-byte one: a high byte follows `t`. */
export const takesHigh = (slots: readonly ({ readonly twoByte: boolean } | undefined)[], t: number): boolean => slots[t - 0x40]?.twoByte === true;

/** The slot of a record's identifier: first byte `t`, then `high` (0 when its structure {@link takesHigh} none). */
export const recordSlot = (t: number, high: number): number => t - 0x40 + (high << 5);

/** The slot a declaration of identifier `id` (with `high`, for a two-byte one) defines, or -1 when `id` is out of its range (0x40-0x7f; 0x60-0x7f with a high byte). */
export const declaredSlot = (id: number, high: number, twoByte: boolean): number => (id > 0x7f || id < (twoByte ? 0x60 : 0x40) ? -1 : recordSlot(id, high));

/** Whether first byte `t` starts an array (fixarray, array 16, array 32), as a declaration's field names must be. */
export const isNamesArray = (t: number): boolean => (t >= 0x90 && t <= 0x9f) || t === 0xdc || t === 0xdd;

/** A declaration's field name `key`, read at `offset`, as records take it: a string, or a number as its decimal text; anything else is a {@link badFieldName} error. */
export function fieldName(key: unknown, offset: number): string {
  if (typeof key === "number" || typeof key === "bigint") return String(key);
  if (typeof key !== "string") throw badFieldName(offset, key);
  return key;
}

/** A reference to an identifier that no structure was defined for. */
export function undefinedRecord(offset: number, first: number, index: number): DecodeError {
  const high = index === first - 0x40 ? "" : ` (high byte ${(index - first + 0x40) >> 5})`;
  return decodeAt("record", offset, `no record structure for identifier 0x${first.toString(16)}${high}`, "INVALID_BYTE");
}

/** A record definition whose identifier byte is out of its range (0x40-0x7f, or 0x60-0x7f with a high byte). */
export const badRecordId = (offset: number, id: number): DecodeError => decodeAt("record definition", offset, `identifier 0x${id.toString(16)} out of range`, "INVALID_BYTE");

/** A record definition not followed by an array of field names. */
export const noFieldNames = (offset: number, byte: number): DecodeError => decodeAt("record definition", offset, `type byte 0x${byte.toString(16)} where an array of field names must be`, "INVALID_EXT");

/** A field name that is neither a string nor a number. */
export const badFieldName = (offset: number, key: unknown): DecodeError => decodeAt("record field name", offset, `${key === null ? "null" : typeof key}, not a string or number`, "INVALID_KEY");
