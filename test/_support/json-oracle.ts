// The lossless JSON form as the inspector's tree gives it: a second,
// independent writer of the same rules (from an InspectNode tree, not from
// the bytes), the oracle that src/inspect/to-json.ts's byte walk is
// checked against. Not used by the package. The format's forms, the
// shortest headers and the text helpers come from ./spec.ts (written from
// the spec and the platform), not from src/.
import { inspect, type InspectNode, type InspectOptions } from "../../src/inspect/tree.ts";
import { base64, escapeControls, isoTime, shortestArrayByte, shortestBinByte, shortestExtByte, shortestIntByte, shortestMapByte, shortestStrHeader, specForm } from "./spec.ts";

/** The form a first byte starts, as a tag: "$uint16", "$str8", "$ext32". */
function tagOf(t: number, prefix: string): string {
  const field = specForm(t).field;
  return `$${prefix}${field ? field * 8 : ""}`;
}

/** Whether the map's keys can be the keys of a plain JSON object that reads back in the same order to the same bytes. */
function plainKeys(children: InspectNode[], bytes: Uint8Array, base: number): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < children.length; i += 2) {
    const k = children[i]!;
    if (k.type !== "str" || typeof k.value !== "string" || k.headerLength !== shortestStrHeader(k.count!) || (k.headerLength === 1) !== (bytes[k.offset - base]! < 0xc0)) return false;
    // JSON.parse lists integer-like keys first, and drops duplicates
    if (/^(0|[1-9]\d{0,9})$/.test(k.value) && Number(k.value) < 0xffffffff) return false;
    if (seen.has(k.value)) return false;
    seen.add(k.value);
  }
  return !(seen.size === 1 && [...seen][0]!.startsWith("$"));
}

/** The bits of a NaN, when they are not the usual quiet NaN's. */
function nanBits(bytes: Uint8Array, at: number, n: number): string | null {
  const hex = Array.from(bytes.subarray(at, at + n), (x) => x.toString(16).padStart(2, "0")).join("");
  return hex === (n === 4 ? "7fc00000" : "7ff8000000000000") ? null : "0x" + hex;
}

/**
 * One node as a JSON value (see the module doc): plain JSON where the
 * encoder would write these very bytes, else a `$` tag.
 */
function jsonOf(node: InspectNode, bytes: Uint8Array, base: number): unknown {
  const at = node.offset - base;
  const t = bytes[at]!;
  const v = node.value;
  switch (node.type) {
    case "nil":
    case "boolean":
      return v;
    case "int": {
      const canonical = typeof v === "number" && shortestIntByte(v) === t;
      if (canonical) return v;
      return { [`${t <= 0xcf ? "$uint" : "$int"}${8 * (node.length - 1)}`]: typeof v === "bigint" ? String(v) : v };
    }
    case "float": {
      const n = node.length - 1;
      const x = v as number;
      if (n === 8 && Number.isFinite(x) && !Number.isSafeInteger(x)) return x;
      const special = x !== x ? (nanBits(bytes, at + 1, n) ?? "NaN") : x === Infinity ? "Infinity" : x === -Infinity ? "-Infinity" : Object.is(x, -0) ? "-0" : x;
      return { [n === 4 ? "$float32" : "$float64"]: special };
    }
    case "str":
      return node.headerLength === shortestStrHeader(node.count!) ? v : { [t < 0xc0 ? "$fixstr" : tagOf(t, "str")]: v };
    case "bin": {
      const canonical = shortestBinByte(node.count!) === t;
      return { [canonical ? "$bin" : tagOf(t, "bin")]: base64(v as Uint8Array) };
    }
    case "array": {
      const items = node.children!.map((c) => jsonOf(c, bytes, base));
      return shortestArrayByte(node.count!) === t ? items : { [tagOf(t, "array")]: items };
    }
    case "map": {
      const children = node.children!;
      const canonical = shortestMapByte(node.count!) === t;
      if (canonical && plainKeys(children, bytes, base)) {
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < children.length; i += 2) Object.defineProperty(obj, children[i]!.value as string, { value: jsonOf(children[i + 1]!, bytes, base), enumerable: true, writable: true, configurable: true });
        return obj;
      }
      const pairs: unknown[] = [];
      for (let i = 0; i < children.length; i += 2) pairs.push([jsonOf(children[i]!, bytes, base), jsonOf(children[i + 1]!, bytes, base)]);
      return { [canonical ? "$map" : t < 0x90 ? "$fixmap" : tagOf(t, "map")]: pairs };
    }
    case "record": {
      // a record is written as the map the decoder's object would be: its keys are strings, in the structure's order
      const children = node.children!;
      const names = new Set<string>();
      let plain = true;
      for (let i = 0; i < children.length; i += 2) {
        const k = children[i]!.value as string;
        if ((/^(0|[1-9]\d{0,9})$/.test(k) && Number(k) < 0xffffffff) || names.has(k)) plain = false;
        names.add(k);
      }
      if (plain && !(names.size === 1 && [...names][0]!.startsWith("$"))) {
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < children.length; i += 2) Object.defineProperty(obj, children[i]!.value as string, { value: jsonOf(children[i + 1]!, bytes, base), enumerable: true, writable: true, configurable: true });
        return obj;
      }
      const pairs: unknown[] = [];
      for (let i = 0; i < children.length; i += 2) pairs.push([children[i]!.value, jsonOf(children[i + 1]!, bytes, base)]);
      return { $map: pairs };
    }
    case "ext": {
      const n = node.count!;
      const type = node.extType!;
      const canonicalHeader = shortestExtByte(n) === t;
      const data = bytes.subarray(at + node.headerLength, at + node.headerLength + n);
      if (node.time && canonicalHeader) {
        const { sec, nsec } = node.time;
        const shortest = sec >= 0 && sec <= 0x3ffffffff ? (nsec === 0 && sec <= 0xffffffff ? 4 : 8) : 12;
        return { [shortest === n ? "$timestamp" : `$timestamp${n * 8}`]: isoTime(sec, nsec) };
      }
      return { [canonicalHeader ? "$ext" : t >= 0xd4 ? `$fixext${n}` : tagOf(t, "ext")]: [type, base64(data)] };
    }
    default:
      throw new Error(`0xc1 at offset ${node.offset}`);
  }
}

/** Each value of valid `bytes` as a line of JSON, from the inspector's tree (the oracle of `toJson`). */
export function treeToJson(bytes: Uint8Array, options?: InspectOptions): string {
  const result = inspect(bytes, options);
  if (result.error) throw result.error;
  return result.nodes.map((node) => escapeControls(JSON.stringify(jsonOf(node, result.bytes, result.start))) + "\n").join("");
}

/** One node of the tree as its line of JSON (without the newline). */
export function nodeJsonLine(node: InspectNode, bytes: Uint8Array, base = 0): string {
  return escapeControls(JSON.stringify(jsonOf(node, bytes, base)));
}
