/**
 * The text view of an inspected input: one line per value with its offset
 * in hex, its header bytes, its form and its value, indented by depth.
 *
 * @module
 */

import type { InspectNode, InspectResult } from "./tree.ts";
import { isoTime } from "./time.ts";
import { escapeControls, quote } from "./escape.ts";

/** Options of {@link renderText}. */
export interface RenderOptions {
  /** Containers nested deeper than this show a count instead of their items (the top level is depth 0). @default Infinity */
  readonly maxDepth?: number;
  /** Items (arrays) or entries (maps) shown per container; the rest are counted on one line. @default Infinity */
  readonly maxItems?: number;
  /** Characters of a string and bytes of a binary shown; longer ones are cut, their full length shown. @default 64 */
  readonly maxString?: number;
  /** ANSI colours (for a terminal). @default false */
  readonly color?: boolean;
}

/** The colours of every view, the command line's too (SGR codes): dim offsets and notes, cyan header bytes, yellow forms, green strings, magenta numbers, bold red errors. */
const COLORS = { offset: "2", header: "36", form: "33", string: "32", number: "35", error: "1;31", note: "2", heading: "1" } as const;

/** What a view colours. */
export type Paint = keyof typeof COLORS;

/** A function that colours text as {@link Paint} says (with ANSI SGR codes), or leaves it as it is when `color` is false. */
export function painter(color: boolean): (what: Paint, text: string) => string {
  return (what, text) => (color && text !== "" ? `\x1b[${COLORS[what]}m${text}\x1b[0m` : text);
}

/** Hex of `bytes[from..to)`, bytes separated by spaces. */
export function hexOf(bytes: Uint8Array, from: number, to: number): string {
  let out = "";
  for (let i = from; i < to; i++) out += (i > from ? " " : "") + (bytes[i]! < 16 ? "0" : "") + bytes[i]!.toString(16);
  return out;
}

/** Header bytes wide enough for the longest header of a number (9 bytes). */
const HEADER_WIDTH = 26;

/**
 * Renders the result of `inspect` as text: one line per value (offset in
 * hex, header bytes, form, value), indented by depth, map values under
 * their keys, a record's field values under their names (and a
 * structure's declaration on the lines before its first record); each
 * error on a line of its own (`!` code, message) under
 * the value where it was found, and a last line for bytes left unread.
 *
 * @param result what `inspect` returned
 * @param options depth and item limits, string cut, colours
 * @returns the text, lines ending in "\n"
 *
 * @example
 * ```ts
 * import { inspect, renderText } from "@resizable/msgpack/inspect";
 * const text = renderText(inspect(new Uint8Array([0x92, 0x01, 0xa2, 0x68, 0x69])));
 * console.assert(text === [
 *   "00000000  92                          fixarray (2 items)",
 *   "00000001  01                            positive fixint 1",
 *   "00000002  a2                            fixstr (2 B) \"hi\"",
 *   "",
 * ].join("\n"));
 * ```
 */
export function renderText(result: InspectResult, options?: RenderOptions): string {
  const maxDepth = options?.maxDepth ?? Infinity;
  const maxItems = options?.maxItems ?? Infinity;
  const maxString = options?.maxString ?? 64;
  const color = options?.color ?? false;
  const paint = painter(color);
  const { bytes } = result;
  const base = result.start;
  const width = Math.max(8, (base + bytes.length).toString(16).length);
  const lines: string[] = [];
  const offsetText = (offset: number): string => paint("offset", offset.toString(16).padStart(width, "0"));
  let errorShown = false;

  const line = (offset: number, header: string, depth: number, text: string): void => {
    lines.push(`${offsetText(offset)}  ${paint("header", header)}${" ".repeat(Math.max(1, HEADER_WIDTH + 2 - header.length))}${"  ".repeat(depth)}${text}`);
  };
  const note = (offset: number, depth: number, text: string): void => line(offset, "", depth, paint("note", text));

  const show = (node: InspectNode, depth: number): void => {
    let at = node.offset - base;
    const isNumber = node.type === "int" || node.type === "float" || node.type === "nil" || node.type === "boolean";
    let headerEnd = Math.min(bytes.length, at + (isNumber ? node.length : node.headerLength));
    if (node.definition) {
      // a record declared where it starts: the declaration, then the record (no header bytes of its own)
      show(node.definition, depth);
      at = headerEnd = Math.min(bytes.length, at + node.definition.length);
    }
    line(base + at, hexOf(bytes, at, headerEnd), depth, `${paint("form", node.form)}${describe(node)}`);
    if (node.error) {
      errorShown ||= node.error === result.error;
      lines.push(`${" ".repeat(width + 2 + HEADER_WIDTH + 2)}${"  ".repeat(depth)}${paint("error", `! ${node.error.code}: ${escapeControls(node.error.message)}`)}`);
    }
    const children = node.children;
    if (!children) return;
    const isRecord = node.type === "record";
    const isMap = node.type === "map" || isRecord;
    const step = isMap ? 2 : 1;
    const units = (n: number): string => `${n} ${isRecord ? (n === 1 ? "field" : "fields") : isMap ? (n === 1 ? "entry" : "entries") : n === 1 ? "item" : "items"}`;
    // items left out of the tree (`omitted`) start after the last one kept
    const last = children[children.length - 1];
    const omittedAt = last === undefined ? node.offset + node.headerLength : last.offset + last.length;
    if (depth >= maxDepth) {
      const all = Math.ceil(children.length / step) + (node.omitted ?? 0);
      if (all > 0) note(children[0]?.offset ?? omittedAt, depth + 1, `... ${units(all)}`);
      return;
    }
    const shown = Math.min(children.length, maxItems * step);
    for (let i = 0; i < shown; i++) {
      // a record's field name is in its structure, not here: a line without offset or bytes
      if (isRecord && i % 2 === 0) lines.push(`${" ".repeat(width + 2 + HEADER_WIDTH + 2)}${"  ".repeat(depth + 1)}${paint("string", quote(String(children[i]!.value)))}:`);
      else show(children[i]!, depth + 1 + (isMap && i % 2 === 1 ? 1 : 0));
    }
    const more = Math.ceil((children.length - shown) / step) + (node.omitted ?? 0);
    if (more > 0) note(children[shown]?.offset ?? omittedAt, depth + 1, `... ${units(more).replace(" ", " more ")}`);
  };

  const describe = (node: InspectNode): string => {
    const v = node.value;
    switch (node.type) {
      case "array":
        return ` (${node.count} ${node.count === 1 ? "item" : "items"})`;
      case "map":
        return ` (${node.count} ${node.count === 1 ? "entry" : "entries"})`;
      case "str": {
        if (typeof v !== "string") return ` (${node.count} B)`;
        const cut = [...v.slice(0, maxString + 1)];
        const text = cut.length > maxString ? quote(cut.slice(0, maxString).join("")).slice(0, -1) + '..."' : quote(v);
        return ` (${node.count} B) ${paint("string", text)}`;
      }
      case "bin":
        return ` (${node.count} B)${v instanceof Uint8Array ? " " + paint("string", bytesText(v, maxString)) : ""}`;
      case "record":
        return "";
      case "ext": {
        if (node.form.startsWith("record definition")) return "";
        const data = node.value instanceof Date ? undefined : (node.value as { data?: Uint8Array } | undefined)?.data;
        if (node.time) return ` (${node.count} B) ${paint("string", isoTime(node.time.sec, node.time.nsec))}`;
        return ` (${node.count} B)${data ? " " + paint("string", bytesText(data, maxString)) : ""}`;
      }
      case "reserved":
        return "";
      default:
        return node.length > 1 || node.type === "int" ? (v === undefined ? "" : " " + paint("number", numberText(v))) : "";
    }
  };

  for (const node of result.nodes) show(node, 0);
  if (result.error && !errorShown) lines.push(paint("error", `! ${result.error.code}: ${escapeControls(result.error.message)}`));
  const unread = base + bytes.length - result.end;
  if (unread > 0) note(result.end, 0, `... ${unread} byte(s) not read`);
  return lines.join("\n") + "\n";
}

/** A number as text: -0, NaN and bigints told apart. */
function numberText(v: unknown): string {
  if (typeof v === "bigint") return String(v);
  if (typeof v === "boolean" || v === null) return String(v);
  return Object.is(v, -0) ? "-0" : String(v);
}

/** The first `max` bytes in hex, and "..." if there are more. */
function bytesText(b: Uint8Array, max: number): string {
  return hexOf(b, 0, Math.min(b.length, max)) + (b.length > max ? " ..." : "");
}
