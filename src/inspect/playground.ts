/**
 * The playground page's script (dist/playground.html, built by
 * test/tools/playground.mjs with this module inlined): paste hex or
 * base64, or drop a file, and see the bytes beside the tree `inspect`
 * reads from them; hovering a node highlights its bytes and hovering a
 * byte its node; errors are shown at their offset; the JSON pane follows
 * the bytes, and JSON typed into it becomes the bytes; a switch reads
 * msgpackr's records (`useRecords`). The sample the page opens with is
 * replaced whole by a paste (and selected when the field is focused), so a
 * pasted message is never read after it. Text from the input is shown as
 * text: control, bidirectional and invisible characters as `\u` escapes.
 * No network, no eval, no inline styles or handlers.
 *
 * @module
 */

import { inspect, type InspectNode, type InspectResult } from "./tree.ts";
import { fromBase64, fromJson, toJson } from "./json.ts";
import { isoTime } from "./time.ts";

/** Bytes shown in the byte view; the tree shows everything up to {@link MAX_NODES}. */
const MAX_BYTES = 1 << 16;
/** Nodes shown in the tree. */
const MAX_NODES = 5000;
/** Inputs up to this size are shown as JSON too (a larger one would make a textarea of many megabytes). */
const MAX_JSON_BYTES = 1 << 20;

/**
 * Characters that change how the text around them is shown, or that do not
 * show at all: DEL and the C1 controls, the soft hyphen, the bidirectional
 * marks, embeddings, overrides and isolates, zero-width and invisible
 * operators, the byte order mark and the interlinear annotations. C0
 * controls and lone surrogates are escaped by `JSON.stringify` already.
 */
const UNSAFE_CHARS = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/**
 * Text with the {@link UNSAFE_CHARS} written as `\uXXXX` escapes, so it
 * shows as it is stored: a right-to-left override in a key or a file name
 * cannot turn the text after it around. JSON text stays the same JSON
 * (those characters only occur inside its strings).
 */
function visible(text: string): string {
  return text.replace(UNSAFE_CHARS, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/** The bytes of pasted text: hex (any separators, an optional 0x) or base64. */
export function parseInput(text: string): { bytes: Uint8Array; as: string } | { error: string } {
  const t = text.trim();
  if (t === "") return { bytes: new Uint8Array(0), as: "empty" };
  const hex = t.replace(/0x/gi, "").replace(/[\s,:;-]/g, "");
  if (/^[0-9a-fA-F]*$/.test(hex) && hex.length % 2 === 0) {
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return { bytes: out, as: "hex" };
  }
  const b64 = fromBase64(t.replace(/\s/g, "").replace(/-/g, "+").replace(/_/g, "/"));
  if (b64 !== null) return { bytes: b64, as: "base64" };
  return { error: "Not hex or base64" };
}

function el(tag: string, className: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function hex2(b: number): string {
  return (b < 16 ? "0" : "") + b.toString(16);
}

/** A node's value as short text. */
function valueText(node: InspectNode): string {
  const v = node.value;
  if (node.time) return isoTime(node.time.sec, node.time.nsec);
  // a record's form counts its fields; a declaration's payload is its identifier, in its form too
  if (node.type === "record" || node.form.startsWith("record definition")) return "";
  if (node.type === "array") return `${node.count} item${node.count === 1 ? "" : "s"}`;
  if (node.type === "map") return `${node.count} entr${node.count === 1 ? "y" : "ies"}`;
  if (v instanceof Uint8Array || (typeof v === "object" && v !== null && "data" in v)) {
    const b = v instanceof Uint8Array ? v : (v as { data: Uint8Array }).data;
    return Array.from(b.subarray(0, 16), hex2).join(" ") + (b.length > 16 ? " ..." : "");
  }
  if (typeof v === "string") return visible(JSON.stringify(v.length > 80 ? v.slice(0, 80) + "..." : v));
  if (typeof v === "number" && Object.is(v, -0)) return "-0";
  return v === undefined ? "" : String(v);
}

class Playground {
  /** The bytes shown and what they are (for the status line), read again when the records switch changes. */
  private shown: { bytes: Uint8Array; what: string } | null = null;
  /** Whether to read msgpackr's records (the records switch). */
  private useRecords = false;
  private byteSpans: HTMLElement[] = [];
  /** Per shown byte, the innermost node row that covers it. */
  private owner: (HTMLElement | null)[] = [];
  private lit: HTMLElement[] = [];

  constructor() {
    const input = $<HTMLTextAreaElement>("input");
    // the sample the page opens with, until the user changes it: focusing selects it, a paste replaces it
    let sample = true;
    input.addEventListener("focus", () => {
      if (sample) input.select();
    });
    input.addEventListener("paste", (e) => {
      const text = e.clipboardData?.getData("text/plain");
      // a paste with no text (an image, say) leaves the sample as it is
      if (!sample || !text) return;
      e.preventDefault();
      input.value = text;
      sample = false;
      this.show(text);
    });
    input.addEventListener("input", () => {
      sample = false;
      this.show(input.value);
    });
    const json = $<HTMLTextAreaElement>("json");
    json.addEventListener("input", () => {
      sample = false;
      this.fromJsonText(json.value);
    });
    const records = $<HTMLInputElement>("records");
    this.useRecords = records.checked;
    records.addEventListener("change", () => {
      this.useRecords = records.checked;
      if (this.shown) this.showBytes(this.shown.bytes, this.shown.what);
    });
    const drop = document.body;
    drop.addEventListener("dragover", (e) => {
      e.preventDefault();
      drop.classList.add("dragging");
    });
    drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.classList.remove("dragging");
      const file = e.dataTransfer?.files[0];
      if (file) void file.arrayBuffer().then((buf) => this.showBytes(new Uint8Array(buf), `${visible(file.name)}, ${buf.byteLength} bytes`));
    });
    $<HTMLInputElement>("file").addEventListener("change", (e) => {
      const file = (e.target as HTMLInputElement).files?.[0];
      if (file) void file.arrayBuffer().then((buf) => this.showBytes(new Uint8Array(buf), `${visible(file.name)}, ${buf.byteLength} bytes`));
    });
    $("tree").addEventListener("mouseover", (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>(".node");
      if (row) this.highlight(row);
    });
    $("bytes").addEventListener("mouseover", (e) => {
      const span = (e.target as HTMLElement).closest<HTMLElement>(".b");
      const row = span ? this.owner[Number(span.dataset.i)] : null;
      if (row) this.highlight(row);
    });
    this.show(input.value);
  }

  private show(text: string): void {
    const parsed = parseInput(text);
    if ("error" in parsed) {
      this.status(parsed.error);
      this.shown = null;
      this.render(null);
      this.showJson("", "No JSON: the input is not hex or base64");
      return;
    }
    this.showBytes(parsed.bytes, `${parsed.as}, ${parsed.bytes.length} bytes`);
  }

  /** Shows `bytes` in the byte view and the tree, and as JSON unless `fromJson` (the JSON pane is where they came from). */
  private showBytes(bytes: Uint8Array, what: string, fromJson = false): void {
    this.shown = { bytes, what };
    this.status(what);
    const result = inspect(bytes, { useRecords: this.useRecords });
    this.render(result);
    if (!fromJson) this.followBytes(result);
  }

  /** The JSON pane follows the bytes: their values in the lossless JSON form, or why there are none. */
  private followBytes(result: InspectResult): void {
    const { bytes, error } = result;
    if (error) return this.showJson("", `No JSON: the bytes do not decode (${error.code} at offset ${error.offset})`);
    if (bytes.length > MAX_JSON_BYTES) return this.showJson("", `No JSON: ${bytes.length} bytes is over the ${MAX_JSON_BYTES >> 20} MiB shown as JSON`);
    let text: string;
    try {
      text = toJson(bytes, { useRecords: this.useRecords });
    } catch (e) {
      return this.showJson("", `No JSON: ${(e as Error).message}`);
    }
    this.showJson(visible(text), "");
  }

  private showJson(text: string, problem: string): void {
    $<HTMLTextAreaElement>("json").value = text;
    $("json-error").textContent = visible(problem);
  }

  private status(text: string): void {
    $("status").textContent = text;
  }

  private render(result: InspectResult | null): void {
    const bytesView = $("bytes");
    const tree = $("tree");
    const error = $("error");
    bytesView.replaceChildren();
    tree.replaceChildren();
    error.replaceChildren();
    this.byteSpans = [];
    this.owner = [];
    this.lit = [];
    if (result === null) return;
    const { bytes } = result;
    const shown = Math.min(bytes.length, MAX_BYTES);
    for (let row = 0; row < shown; row += 16) {
      const line = el("div", "row");
      line.append(el("span", "off", row.toString(16).padStart(8, "0")));
      for (let i = row; i < Math.min(row + 16, shown); i++) {
        const span = el("span", "b", hex2(bytes[i]!));
        span.dataset.i = String(i);
        this.byteSpans.push(span);
        line.append(span);
      }
      bytesView.append(line);
    }
    if (shown < bytes.length) bytesView.append(el("div", "note", `... ${bytes.length - shown} more bytes`));
    this.owner = new Array<HTMLElement | null>(shown).fill(null);
    let count = 0;
    /** Where each field name read in a record definition ends, by its offset: a record's field name row highlights it. */
    const nameEnds = new Map<number, number>();
    const add = (node: InspectNode, depth: number, parent: HTMLElement, label: string): void => {
      if (count++ >= MAX_NODES) return;
      // a record declared where it starts: the declaration's row first, then the record's from its first field
      const def = node.definition;
      if (def) {
        add(def, depth, parent, "");
        for (const name of def.children?.[0]?.children ?? []) nameEnds.set(name.offset, name.offset + name.length);
      }
      const row = el("div", "node" + (node.error ? " err" : ""));
      // a field name has no bytes of its own: it lights up its name in the definition, if that is in the input
      const start = def ? def.offset + def.length : node.offset;
      const end = node.form === "field" ? (nameEnds.get(node.offset) ?? node.offset) : node.offset + node.length;
      row.dataset.start = String(start);
      row.dataset.end = String(end);
      const line = el("div", "line");
      // a field name's offset is in the definition, not here: none shown (as in the text view)
      line.append(el("span", "off", node.form === "field" ? " ".repeat(8) : start.toString(16).padStart(8, "0")));
      line.append(el("span", "indent", "  ".repeat(depth)));
      if (label) line.append(el("span", "label", label));
      line.append(el("span", "form", node.form));
      line.append(el("span", "value", valueText(node)));
      row.append(line);
      if (node.error) row.append(el("div", "msg", `${node.error.code}: ${visible(node.error.message)}`));
      parent.append(row);
      if (node.form !== "field") for (let i = start; i < Math.min(node.offset + node.length, shown); i++) this.owner[i] = row;
      const kids = node.children ?? [];
      const paired = node.type === "map" || node.type === "record";
      kids.forEach((child, i) => add(child, depth + 1, row, paired ? (i % 2 === 0 ? "key " : "value ") : ""));
    };
    for (const node of result.nodes) add(node, 0, tree, "");
    if (count > MAX_NODES) tree.append(el("div", "note", `... ${count - MAX_NODES} more values`));
    if (result.error) {
      const e = result.error;
      error.append(el("strong", "", e.code), el("span", "", ` at offset ${e.offset} (0x${e.offset.toString(16)}): ${visible(e.message)}`));
      this.byteSpans[e.offset]?.classList.add("err");
    }
    if (result.end < bytes.length) tree.append(el("div", "note", `... ${bytes.length - result.end} byte(s) not read`));
  }

  private highlight(row: HTMLElement): void {
    for (const e of this.lit) e.classList.remove("hl");
    this.lit = [row];
    row.classList.add("hl");
    const start = Number(row.dataset.start);
    const end = Math.min(Number(row.dataset.end), this.byteSpans.length);
    for (let i = start; i < end; i++) {
      const span = this.byteSpans[i]!;
      span.classList.add("hl");
      this.lit.push(span);
    }
  }

  /** JSON typed into the JSON pane becomes the bytes (the JSON is left as typed); JSON that does not convert says why. */
  private fromJsonText(text: string): void {
    const out = $("json-error");
    try {
      const bytes = fromJson(text);
      out.textContent = "";
      $<HTMLTextAreaElement>("input").value = Array.from(bytes, hex2).join(" ");
      this.showBytes(bytes, `from JSON, ${bytes.length} bytes`, true);
    } catch (e) {
      out.textContent = visible(String((e as Error).message));
    }
  }
}

if (typeof document !== "undefined") new Playground();
