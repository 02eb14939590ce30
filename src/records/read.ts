/**
 * The record reader: how a decoder with `useRecords` reads msgpackr's
 * record extension (see table.ts for the format and the table of
 * structures). The decoder calls {@link RECORD_DECODING} where a value
 * starts with an identifier byte (0x40-0x7f: a record) or is a fixext 1 or
 * 2 of type 0x72 (a structure declaration); the values inside a record are
 * read by the decoder's `readValue`, so records nest.
 *
 * The readers read through the decoder's cursor (its input, position,
 * limits, and its readers of values and keys), with the table of
 * structures in force for the call.
 *
 * Spec: https://github.com/kriszyp/msgpackr#record-structure-extension-definition
 *
 * @module
 */

import { overLimit, tooDeepToDecode, truncated } from "../common/errors.ts";
import { setOwn } from "../common/objects.ts";
import { FIRST_BYTE, formName, readLength } from "../format/forms.ts";
import type { Cursor } from "../decode/cursor.ts";
import type { RecordDecoding } from "../decode/record-hook.ts";
import { badRecordId, declaredSlot, fieldName, isNamesArray, noFieldNames, RecordTable, type Structure, undefinedRecord } from "./table.ts";

/** The records module's decoding side: the tables of structures and the reader of a decoder with `useRecords`. */
export const RECORD_DECODING: RecordDecoding = {
  table: (structures, compile) => new RecordTable(structures, compile),
  record: (d, records, t, depth, start) => readRecord(d, records as RecordTable, t, depth, start),
  definition: (d, records, twoByte, depth, start) => readDefinition(d, records as RecordTable, twoByte, depth, start),
};

/** Records of one structure read before its reader is compiled: a structure used less costs no code generation. */
const COMPILE_AFTER = 16;
/** Structures with more fields, or longer names in all, are never compiled (their source would be large). */
const COMPILE_MAX_FIELDS = 64;
const COMPILE_MAX_NAME_CHARS = 4096;

/**
 * Whether this engine lets code be generated: false for good once
 * `new Function` throws (a Content-Security-Policy without 'unsafe-eval',
 * Cloudflare Workers), after which records are read as before.
 */
let canCompile = true;

/**
 * A reader of records of `s` made with `new Function`: one object literal
 * with the field names written in, so every record of the structure is
 * made in one allocation with one hidden class (msgpackr does the same).
 * Null where that is refused, or for structures it would not help.
 *
 * No byte of the input becomes code: each field name is written as
 * `JSON.stringify(name)`, which for any string is a double-quoted string
 * literal of JavaScript (JSON is a subset of it since ES2019, and lone
 * surrogates are escaped), so a name can only ever be a property name. The
 * one name whose literal does something else, `"__proto__"` (it sets the
 * prototype), is never compiled: such structures are read by
 * {@link readFields}, which stores it as an own property.
 */
function compileReader(s: Structure): Structure["compiled"] {
  const keys = s.keys;
  if (!canCompile || s.proto || keys.length > COMPILE_MAX_FIELDS) return null;
  let chars = 0;
  for (const key of keys) chars += key.length;
  if (chars > COMPILE_MAX_NAME_CHARS) return null;
  let source = "return function(d,depth){return{";
  for (let i = 0; i < keys.length; i++) source += (i === 0 ? "" : ",") + JSON.stringify(keys[i]) + ":f(d,depth)";
  source += "}}";
  try {
    return new Function("f", source)(readField) as Structure["compiled"];
  } catch {
    canCompile = false;
    return null;
  }
}

/** One field value of a record (its bytes are there: {@link readFields} checked), the commonest small values read here. */
function readField(d: Cursor, depth: number): unknown {
  const p = d.pos;
  const t = d.bytes[p]!;
  if (t < 0x40) {
    d.pos = p + 1;
    return t; // positive fixint below the record identifiers
  }
  if (t >= 0xa0 && t < 0xc0) {
    d.pos = p + 1;
    return d.readString(t & 0x1f, p); // fixstr
  }
  if (t >= 0xc0 && t <= 0xc3 && t !== 0xc1) {
    d.pos = p + 1;
    return t === 0xc0 ? null : t === 0xc3; // nil, false, true
  }
  return d.readValue(depth + 1);
}

/** A record whose identifier's first byte `t` was at `start`, of a structure of `table`. */
function readRecord(d: Cursor, table: RecordTable, t: number, depth: number, start: number): unknown {
  const slots = table.slots;
  let at = t - 0x40;
  let s: Structure | undefined = slots[at];
  if (s !== undefined && s.twoByte) {
    if (d.pos >= d.end) throw truncated(d.base + start, 2, d.base + d.end, "record identifier", d.ended);
    const high = d.bytes[d.pos++]!;
    if (high !== 0) s = slots[(at += high << 5)];
  }
  if (s === undefined) throw undefinedRecord(d.base + start, t, at);
  return readFields(d, table, s, depth, start);
}

/** A structure declaration at `start` (fixext 1 or, `twoByte`, fixext 2 of type 0x72) defined in `table`, its field names, then its first record. */
function readDefinition(d: Cursor, table: RecordTable, twoByte: boolean, depth: number, start: number): unknown {
  const b = d.bytes;
  // the type byte, the identifier (and its high byte), and the first byte of the field names
  const at = d.pos + 1;
  const pos = at + (twoByte ? 2 : 1);
  if (pos > d.end) throw truncated(d.base + start, pos - start, d.base + d.end, "record definition", d.ended);
  const id = b[at]!;
  const slot = declaredSlot(id, twoByte ? b[at + 1]! : 0, twoByte);
  if (slot < 0) throw badRecordId(d.base + start, id);
  if (pos === d.end) throw truncated(d.base + start, pos - start + 1, d.base + d.end, "record definition", d.ended);
  // the field names: an array of strings (numbers become names, as map keys do)
  const t = b[pos]!;
  if (!isNamesArray(t)) throw noFieldNames(d.base + start, t);
  const form = FIRST_BYTE[t]!;
  const field = (form >> 4) & 0x07;
  if (pos + 1 + field > d.end) throw truncated(d.base + pos, 1 + field, d.base + d.end, formName(t), d.ended);
  const n = field === 0 ? form >> 8 : readLength(b, pos + 1, field);
  d.pos = pos + 1 + field;
  if (n > d.limits.maxMapLength) throw overLimit("record", d.base + start, n, "maxMapLength", d.limits.maxMapLength);
  // every name takes a byte at least: refuse before allocating
  if (d.pos + n > d.end) throw truncated(d.base + start, d.pos - start + n, d.base + d.end, `record definition of ${n} fields`, d.ended);
  if (depth >= d.limits.maxDepth) throw tooDeepToDecode(d.base + start, d.limits.maxDepth);
  const keys = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const k = d.base + d.pos;
    keys[i] = fieldName(d.readKey(depth + 1), k);
  }
  const s = table.declared(keys, twoByte, b, pos, d.pos - pos);
  table.define(slot, s);
  return readFields(d, table, s, depth, start);
}

/** The field values of a record of structure `s` of `table` (its identifier at `start`), as an object. */
function readFields(d: Cursor, table: RecordTable, s: Structure, depth: number, start: number): Record<string, unknown> {
  const keys = s.keys;
  const n = keys.length;
  // every value takes a byte at least
  if (d.pos + n > d.end) throw truncated(d.base + start, d.pos - start + n, d.base + d.end, `record of ${n} fields`, d.ended);
  if (depth >= d.limits.maxDepth) throw tooDeepToDecode(d.base + start, d.limits.maxDepth);
  const compiled = s.compiled;
  if (compiled !== null) return compiled(d as never, depth);
  if (++s.reads === COMPILE_AFTER && table.compile && (s.compiled = compileReader(s)) !== null) return s.compiled(d as never, depth);
  if (s.proto) {
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) setOwn(obj, keys[i]!, d.readValue(depth + 1));
    return obj;
  }
  // an object of the structure's own constructor (see table.ts), its fields stored in order
  const o = new s.make() as Record<string, unknown>;
  for (let i = 0; i < n; i++) o[keys[i]!] = readField(d, depth);
  return o;
}
