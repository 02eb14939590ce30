/**
 * The stats of an inspected input, counted from the tree `inspect` reads
 * as the stream walker counts them: per form, values and bytes
 * (containers: their headers only; a record: its identifier, a
 * structure's declaration: its extension header, under "record" and
 * "record definition"), and per key path, where a record's fields are a
 * map's values. The command line counted `stats --records` this way (on
 * the whole input, held in memory) before the stream walker read records:
 * the oracle the walker's records are checked against. Form names, path
 * segments and the path limit are written out here and in ./spec.ts, not
 * imported from src/.
 */

import type { DecodeError } from "../../src/index.ts";
import type { InspectNode, InspectResult } from "../../src/inspect/tree.ts";
import type { Tally } from "../../src/inspect/walker.ts";
import { segment, specForm } from "./spec.ts";

/** Key paths counted on their own; the rest are counted as "(other paths)" (the documented limit). */
const MAX_PATHS = 10_000;

/** What `msgpack stats` prints. */
export interface Stats {
  offset: number;
  values: number;
  forms: Map<string, Tally>;
  paths: Map<string, Tally>;
  error: DecodeError | null;
}

export function treeStats(result: InspectResult): Stats {
  const forms = new Map<string, Tally>();
  const paths = new Map<string, Tally>();
  const tally = (m: Map<string, Tally>, name: string, bytes: number): void => {
    let t = m.get(name);
    if (t === undefined) {
      if (m === paths && m.size >= MAX_PATHS) return tally(m, "(other paths)", bytes);
      m.set(name, (t = { count: 0, bytes: 0 }));
    }
    t.count++;
    t.bytes += bytes;
  };
  const { bytes, start } = result;
  const keyOf = (k: InspectNode): string => {
    if (k.type === "str") return segment(String(k.value));
    if (k.type === "int" || k.type === "float" || k.type === "nil" || k.type === "boolean") return `[${String(k.value)}]`;
    if (k.type === "bin") return "[<bin>]";
    if (k.type === "ext") return `[<ext ${k.extType}>]`;
    return "{}";
  };
  const visit = (node: InspectNode, path: string, counted: boolean): void => {
    const t = bytes[node.offset - start]!;
    const container = node.children !== undefined;
    if (node.type === "record") {
      if (node.definition) {
        tally(forms, "record definition", node.definition.headerLength);
        for (const names of node.definition.children ?? []) visit(names, path, false);
      }
      if (node.recordId && !node.definition) tally(forms, "record", node.recordId.length);
      else if (node.definition) tally(forms, "record", 0);
    } else if (node.length > 0) tally(forms, specForm(t).name, container ? node.headerLength : node.length);
    if (counted && !node.error) tally(paths, path, node.length);
    const children = node.children ?? [];
    if (node.type === "map" || node.type === "record") {
      for (let i = 0; i + 1 < children.length; i += 2) {
        if (node.type === "map") visit(children[i]!, path + "{key}", false);
        visit(children[i + 1]!, path + keyOf(children[i]!), counted);
      }
      if (children.length % 2 === 1 && node.type === "map") visit(children[children.length - 1]!, path + "{key}", false);
    } else for (const c of children) visit(c, counted ? path + "[]" : path, counted);
  };
  let values = 0;
  for (const node of result.nodes) {
    const broken = result.error !== null && node.offset + node.length > result.error.offset;
    if (!broken) values++;
    visit(node, "$", true);
  }
  return { offset: start + bytes.length, values, forms, paths, error: result.error };
}
