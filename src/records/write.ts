/**
 * The encoder's side of msgpackr's record extension (`useRecords`): which
 * record structure an object's keys make, the identifiers structures get,
 * the declaration written the first time a message (or a sequential
 * encoder) uses one, and the record itself: the identifier, then the
 * values in key order, each written by the encoder's walk (walk.ts), which
 * hands every plain object to {@link RecordWriter.write}.
 *
 * Identifiers are indexes from 0: index i is the byte 0x40 + i, or with
 * two-byte identifiers (more than 32 shared structures, or more than 64
 * in all) from index 32 the bytes 0x60 + (i & 31) and (i - 32) >> 5.
 * Shared structures (the `structures` option) take the first indexes and
 * are never declared in messages; the message's own structures take the
 * indexes after `maxSharedStructures` (64 of them, 32 with `structures`)
 * and are declared inline (fixext 1 or 2 of type 0x72, then the array of
 * their field names) where first used, as msgpackr's `Packr` does.
 *
 * Spec: https://github.com/kriszyp/msgpackr#record-structure-extension-definition
 *
 * @module
 */

import { invalidEncodeOption } from "../common/errors.ts";
import { isFieldNames } from "../format/records.ts";
import type { ResolvedEncodeOptions } from "../encode/options.ts";
import { encodeKey } from "../encode/strings.ts";
import { hasKeys, type RecordEncoding, type RecordWriting, type ValueWriter } from "../encode/walk.ts";

/**
 * Nodes of the key trie kept between messages: past this many, the trie
 * starts over at the next message, so objects with ever-new keys (maps
 * used as dictionaries) cannot grow it without bound.
 */
const MAX_TRIE_NODES = 16_384;

/** A structure: its field names and its current index (-1: none, it was evicted or its message ended). */
export interface RecordShape {
  readonly keys: readonly string[];
  index: number;
}

/** A node of the key trie: the path from the root spells a key sequence. */
interface TrieNode {
  /** Children by the next key (a prototype-less object: any key is safe). */
  readonly next: Record<string, TrieNode>;
  shape: RecordShape | null;
}

function newNode(): TrieNode {
  return { next: Object.create(null) as Record<string, TrieNode>, shape: null };
}

/**
 * The structures of one encoder: a trie from key sequences to shapes, the
 * shared structures, and the rotation of the message's own identifiers;
 * and the writing of records with them.
 */
export class RecordWriter implements RecordWriting {
  /** `useRecords` as a function, or null for every object. */
  readonly filter: ((obj: object) => boolean) | null;
  /** Whether indexes from 32 take two bytes. */
  readonly twoByte: boolean;
  private readonly shared: string[][] | null;
  /** `maxSharedStructures`: the shared indexes are [0, maxShared), the own ones [maxShared, ownEnd). */
  private readonly maxShared: number;
  private readonly ownEnd: number;
  private readonly sequential: boolean;
  private root: TrieNode;
  private nodes: number;
  private sharedSeen: number;
  /** The next own index to give, and the shape holding each own index. */
  private nextOwn: number;
  private readonly owners: (RecordShape | null)[];
  /** The last shape found per nesting depth: arrays of records repeat it. */
  private readonly recent: (RecordShape | null)[];

  constructor(options: ResolvedEncodeOptions, counting: boolean) {
    this.root = newNode();
    this.nodes = 0;
    this.sharedSeen = -1;
    this.owners = [];
    this.recent = [];
    const use = options.useRecords;
    this.filter = typeof use === "function" ? use : null;
    this.shared = options.structures ?? null;
    const max = (this.maxShared = this.nextOwn = options.maxSharedStructures);
    // without shared structures, identifiers from 32 up to maxSharedStructures are never defined, and a
    // two-byte identifier is read through the structure of its first byte's slot: the records would not decode
    if (this.shared === null && max > 32) throw invalidEncodeOption("maxSharedStructures", max, "at most 32 without structures (the shared structures it counts)");
    this.ownEnd = max + (this.shared === null ? 64 : 32);
    this.twoByte = max > 32 || this.ownEnd > 64;
    // a counting encoder (encodedSize) measures each value as a sequence's first
    this.sequential = !counting && options.sequential;
  }

  /** Starts a message: reloads the shared structures if their array changed; starts the trie over if it grew too large. */
  begin(): void {
    const shared = this.shared;
    if ((shared !== null && shared.length !== this.sharedSeen) || this.nodes > MAX_TRIE_NODES) this.abort();
  }

  /** Ends a message: unless sequential, its own structures are forgotten (the next message declares them again). */
  end(): void {
    if (!this.sequential) this.forgetOwn();
  }

  /** Forgets the own structures: their shapes lose their indexes, given again from the first. */
  private forgetOwn(): void {
    const owners = this.owners;
    for (let i = this.maxShared; i < owners.length; i++) {
      const s = owners[i];
      if (s != null) {
        s.index = -1;
        owners[i] = null;
      }
    }
    this.nextOwn = this.maxShared;
  }

  /**
   * The shape of `keys` at nesting `depth`, with its index (-1: it has
   * none yet: call {@link assign}).
   */
  find(keys: readonly string[], depth: number): RecordShape {
    const n = keys.length;
    let node = this.root;
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      let next = node.next[key];
      if (next === undefined) {
        next = node.next[key] = newNode();
        this.nodes++;
      }
      node = next;
    }
    const shape = node.shape ?? (node.shape = { keys: keys.slice(), index: -1 });
    this.recent[depth] = shape;
    return shape;
  }

  /**
   * Gives `shape` an index: a shared one while `structures` has room
   * (appended to it; returns false: nothing to declare), else the next own
   * one, taken from the shape that held it longest (returns true: declare
   * it before the record). A frozen, sealed or non-extensible `structures`
   * has no room: its shapes are used, new ones are declared in the message.
   */
  assign(shape: RecordShape): boolean {
    const shared = this.shared;
    if (shared !== null && shared.length < this.maxShared && this.sharedSeen === shared.length && Object.isExtensible(shared)) {
      shape.index = shared.length;
      this.sharedSeen = shared.push(shape.keys.slice());
      // an array msgpackr manages counts its shared structures in sharedLength: keep it in step
      const counted = shared as string[][] & { sharedLength?: unknown };
      if (typeof counted.sharedLength === "number") counted.sharedLength = this.sharedSeen;
      return false;
    }
    let at = this.nextOwn;
    if (at >= this.ownEnd) at = this.maxShared; // all taken: the oldest goes
    this.nextOwn = at + 1;
    const old = this.owners[at];
    if (old != null) old.index = -1;
    this.owners[at] = shape;
    shape.index = at;
    return true;
  }

  /**
   * Starts over (after a failed message, so that no own structure is used
   * undeclared later, in sequential use too; or when {@link begin} says
   * so): a new trie holding the shared structures at their indexes; no own
   * structure.
   */
  abort(): void {
    this.forgetOwn();
    this.root = newNode();
    this.nodes = 0;
    const shared = this.shared;
    if (shared !== null) {
      if (shared.length > this.maxShared) {
        throw invalidEncodeOption("structures", `${shared.length} structures`, `at most maxSharedStructures (${this.maxShared}) structures`);
      }
      for (let i = 0; i < shared.length; i++) {
        const keys = shared[i];
        if (!isFieldNames(keys)) {
          throw invalidEncodeOption(`structures[${i}]`, keys, "an array of field names (strings)");
        }
        const shape = this.find(keys, 0);
        // the first index of a key sequence listed twice wins
        if (shape.index < 0) shape.index = i;
      }
      this.sharedSeen = shared.length;
    }
    this.recent.length = 0;
  }

  /**
   * A plain object as a record: its structure's identifier (declared
   * first when new to the message), then its values in key order. With a
   * `useRecords` function that says no, as a map.
   */
  write(w: ValueWriter, obj: Record<string, unknown>, depth: number): void {
    if (this.filter !== null && !this.filter(obj)) {
      w.encodeRecord(obj, depth);
      return;
    }
    let values: unknown[] | null = null;
    // the shape last written at this depth, if the object's keys (walked by for-in, no array made) are its keys,
    // in its order (so with sortKeys, already sorted); never with ignoreUndefined (a value may be undefined now)
    let shape = this.recent[depth];
    let keys: readonly string[];
    if (shape != null && !w.options.ignoreUndefined && Object.getPrototypeOf(obj) === Object.prototype && hasKeys(obj, shape.keys)) {
      keys = shape.keys;
    } else {
      const own = Object.keys(obj);
      if (w.options.sortKeys || w.options.ignoreUndefined) values = w.valuesOf(obj, own);
      keys = own;
      shape = this.find(own, depth);
    }
    if (shape.index < 0 && this.assign(shape)) this.declareShape(w, shape);
    else this.writeId(w, shape.index);
    // exactly one value per key, read by the walk's own loops
    if (values !== null) w.writeFields(obj, keys, values, depth, false, 0, keys.length);
    else w.writeObject(obj, keys, depth, false);
  }

  /** A record identifier: one byte 0x40 + index, or from index 32 with two-byte identifiers, 0x60 + (index & 31) and (index - 32) >> 5. */
  private writeId(w: ValueWriter, index: number): void {
    const s = w.out;
    if (s.pos + 2 > s.bytes.length) s.room(2);
    if (index < 32 || !this.twoByte) {
      s.bytes[s.pos++] = 0x40 + index;
    } else {
      s.bytes[s.pos++] = 0x60 + (index & 31);
      s.bytes[s.pos++] = (index - 32) >> 5;
    }
  }

  /** Declares a structure: fixext 1 (or fixext 2, two-byte identifiers) of type 0x72 with its identifier, then the array of its field names. */
  private declareShape(w: ValueWriter, shape: RecordShape): void {
    const s = w.out;
    if (s.pos + 4 > s.bytes.length) s.room(4);
    s.bytes[s.pos++] = shape.index < 32 || !this.twoByte ? 0xd4 : 0xd5;
    s.bytes[s.pos++] = 0x72;
    this.writeId(w, shape.index);
    const keys = shape.keys;
    w.writeContainerHeader(keys.length, 0x90, 0xdc, "array");
    for (let i = 0; i < keys.length; i++) encodeKey(s, keys[i]!);
  }
}

/** The records module's encoding side: the records of each writer with `useRecords`. */
export const RECORD_ENCODING: RecordEncoding = RecordWriter;
