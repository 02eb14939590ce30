/**
 * The JavaScript value of an inspected node, as `decode` builds it with
 * default options: maps as plain objects (number and bigint keys as
 * property names, `__proto__` as an own property) or, from their first
 * key of another type on, as a `Map` in wire order; records (`useRecords`)
 * as the plain objects the decoder builds for them.
 *
 * @module
 */

import type { InspectNode } from "./tree.ts";

/**
 * The value `decode` gives for the bytes of `node` (default options):
 * scalars as the node holds them, arrays and maps built from the children.
 *
 * @param node a node of `inspect`'s tree, read without error
 * @returns the value
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { inspect, nodeValue } from "@resizable/msgpack/inspect";
 * const value = nodeValue(inspect(encode({ a: [1, "x"] })).nodes[0]!) as { a: unknown[] };
 * console.assert(value.a[1] === "x");
 * ```
 */
export function nodeValue(node: InspectNode): unknown {
  // a container node found in error may have no children (a record whose identifier is refused)
  const children = node.children ?? [];
  if (node.type === "array") return children.map(nodeValue);
  if (node.type === "record") {
    // as the decoder builds a record: its fields in order, `__proto__` as an own property
    const rec: Record<string, unknown> = {};
    for (let i = 0; i + 1 < children.length; i += 2) Object.defineProperty(rec, children[i]!.value as string, { value: nodeValue(children[i + 1]!), writable: true, enumerable: true, configurable: true });
    return rec;
  }
  if (node.type !== "map") return node.value;
  const obj: Record<string, unknown> = {};
  let order: string[] | null = null;
  const n = children.length;
  for (let i = 0; i + 1 < n; i += 2) {
    let key = nodeValue(children[i]!);
    if (typeof key !== "string") {
      if (typeof key !== "number" && typeof key !== "bigint") {
        // from here on a Map, in wire order (as the decoder switches)
        const map = new Map<unknown, unknown>();
        for (const k of order ?? Object.keys(obj)) map.set(k, obj[k]);
        map.set(key, nodeValue(children[i + 1]!));
        for (let j = i + 2; j + 1 < n; j += 2) {
          let k = nodeValue(children[j]!);
          if (typeof k === "number" || typeof k === "bigint") k = String(k);
          map.set(k, nodeValue(children[j + 1]!));
        }
        return map;
      }
      key = String(key);
    }
    const name = key as string;
    if (order !== null) order.push(name);
    else {
      const c = name.charCodeAt(0);
      if (c <= 0x39 && c >= 0x30) (order = Object.keys(obj)).push(name);
    }
    Object.defineProperty(obj, name, { value: nodeValue(children[i + 1]!), writable: true, enumerable: true, configurable: true });
  }
  return obj;
}
