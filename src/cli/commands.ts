/**
 * The `msgpack` commands: inspect, to-json, from-json, stats and validate,
 * each given its parsed arguments, each returning its exit code.
 *
 * @module
 */

import { closeSync, openSync, readSync } from "node:fs";
import process from "node:process";
import type { DecodeError } from "../common/errors.ts";
import { RecordTable } from "../records/table.ts";
import { inspectSequence, type InspectNode, type InspectResult } from "../inspect/tree.ts";
import { hexOf, painter, renderText } from "../inspect/render.ts";
import { JsonSplitter, JsonTooLong, jsonToBytes } from "../inspect/json.ts";
import { toBase64 } from "../inspect/base64.ts";
import { escapeControls } from "../inspect/escape.ts";
import { JsonWriter } from "../inspect/to-json.ts";
import { StreamWalker, type Tally } from "../inspect/walker.ts";
import { isoTime } from "../inspect/time.ts";
import { size, values } from "../inspect/progress.ts";
import { type Args, CliError, InputError } from "./args.ts";
import { binaryLooks, concat, inputChunks, INSPECT_NODES, looksLike, MAX_INSPECT_BYTES, MAX_INSPECT_NODES, MAX_JSON_CHARS, MAX_VALUE_BYTES, notMessagePack, openInput, type Recent, tooLarge, useColor, valuesOf, walkInput, withHead, write } from "./io.ts";

/**
 * The input's values, one at a time, each with its bytes, offset and what
 * `inspect` reads in it: with --records as one sequence, so that
 * structures declared in a value stay declared for the next.
 */
async function* inspectedValues(args: Args, maxNodes: number): AsyncGenerator<{ bytes: Uint8Array; offset: number; result: InspectResult }> {
  const useRecords = args.flags.has("--records");
  const read = inspectSequence({ useRecords }, maxNodes);
  const refuse = (offset: number) => tooLarge("inspect", offset, MAX_INSPECT_BYTES, "its strings are read into this process's heap; node --max-old-space-size raises it");
  for await (const parts of valuesOf(await inputChunks(args, true), new StreamWalker({ useRecords, paths: false }), MAX_INSPECT_BYTES, refuse)) {
    for (const { bytes, offset } of parts) yield { bytes, offset, result: read(bytes, offset) };
  }
}

/** A node of the tree as JSON (for inspect --json). */
function nodeJson(node: InspectNode, bytes: Uint8Array, base: number): unknown {
  const at = node.offset - base;
  const isNumber = node.type === "int" || node.type === "float" || node.type === "nil" || node.type === "boolean";
  const out: Record<string, unknown> = { offset: node.offset, header: hexOf(bytes, at, Math.min(bytes.length, at + (isNumber ? node.length : node.headerLength))).replace(/ /g, ""), length: node.length, form: node.form, type: node.type };
  if (node.count !== undefined) out.count = node.count;
  if (node.extType !== undefined) out.extType = node.extType;
  const v = node.value;
  if (node.time) out.value = isoTime(node.time.sec, node.time.nsec);
  else if (v instanceof Uint8Array) out.value = toBase64(v);
  else if (typeof v === "bigint") out.value = String(v);
  else if (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))) out.value = Object.is(v, -0) ? "-0" : String(v);
  else if (v !== undefined && typeof v === "object" && v !== null && "data" in v) out.value = toBase64((v as { data: Uint8Array }).data);
  else if (v !== undefined) out.value = v;
  if (node.recordId) out.recordId = node.recordId;
  if (node.definition) out.definition = nodeJson(node.definition, bytes, base);
  if (node.children) out.children = node.children.map((c) => nodeJson(c, bytes, base));
  if (node.omitted !== undefined) out.omitted = node.omitted;
  if (node.error) out.error = errorJson(node.error);
  return out;
}

/** Whether a node of the tree left items out (inspect's window). */
function omits(nodes: readonly InspectNode[]): boolean {
  return nodes.some((n) => n.omitted !== undefined || (n.children !== undefined && omits(n.children)) || (n.definition !== undefined && omits([n.definition])));
}

/** An error as JSON. */
function errorJson(e: DecodeError): { code: string; offset: number; message: string } {
  return { code: e.code, offset: e.offset, message: e.message };
}

/** JSON text that is safe to print (ending in a line end): the controls in its strings escaped, its own line ends kept (with `indent`). */
function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).split("\n").map(escapeControls).join("\n") + "\n";
}

async function cmdInspect(args: Args): Promise<number> {
  const color = useColor(args.flags);
  const json = args.flags.has("--json");
  const maxNodes = args.numbers.get("--nodes") ?? INSPECT_NODES;
  if (maxNodes < 1 || maxNodes > MAX_INSPECT_NODES) throw new CliError(`--nodes takes 1 to ${MAX_INSPECT_NODES} here (a node takes about 1 kB of this process's heap; node --max-old-space-size raises it), not ${maxNodes}`);
  let failed = false;
  for await (const { bytes, offset, result } of inspectedValues(args, maxNodes)) {
    if (json) {
      for (const node of result.nodes) await write(process.stdout, safeJson(nodeJson(node, bytes, offset)));
      if (result.error) await write(process.stdout, safeJson({ error: errorJson(result.error) }));
    } else {
      const options = { color, maxString: args.numbers.get("--width") ?? 64, maxDepth: args.numbers.get("--depth") ?? Infinity, maxItems: args.numbers.get("--items") ?? Infinity };
      await write(process.stdout, renderText(result, options));
    }
    if (omits(result.nodes)) {
      const more = maxNodes < MAX_INSPECT_NODES ? ` (--nodes ${Math.min(maxNodes * 10, MAX_INSPECT_NODES)} shows more)` : "";
      process.stderr.write(`msgpack inspect: the value at offset ${offset} has more than ${maxNodes} nodes: the first ${maxNodes} are shown${more}, the rest counted; "msgpack to-json" prints all of it\n`);
    }
    if (result.error) failed = true;
  }
  return failed ? 1 : 0;
}

async function cmdToJson(args: Args): Promise<number> {
  const useRecords = args.flags.has("--records");
  const walker = new StreamWalker({ useRecords, paths: false });
  const records = useRecords ? new RecordTable(null, false) : null;
  records?.begin();
  const writer = new JsonWriter(records);
  const refuse = (offset: number) => tooLarge("to-json", offset, MAX_VALUE_BYTES, "its bytes are held while it is written");
  let out = "";
  for await (const parts of valuesOf(await inputChunks(args, true), walker, MAX_VALUE_BYTES, refuse)) {
    for (const { bytes, broken } of parts) {
      if (broken) break;
      // the walker has checked the value: it is written as it is walked, a piece at a time
      for (const piece of writer.write(bytes)) {
        out += piece;
        if (out.length >= 1 << 16) (await write(process.stdout, out), (out = ""));
      }
    }
  }
  await write(process.stdout, out);
  const error = walker.error;
  if (error === null) return 0;
  process.stderr.write(`msgpack to-json: invalid MessagePack: ${error.code}: ${escapeControls(error.message)}\n`);
  return 1;
}

async function cmdFromJson(args: Args): Promise<number> {
  if (process.stdout.isTTY) throw new CliError("not writing MessagePack (bytes, not text) to a terminal: redirect it to a file (> out.msgpack) or a pipe");
  const input = openInput(args.file);
  const utf8 = new TextDecoder();
  const splitter = new JsonSplitter(MAX_JSON_CHARS);
  let head: Uint8Array = new Uint8Array(0);
  let index = 0;
  const emit = async (texts: string[]): Promise<void> => {
    for (const text of texts) {
      index++;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        const looks = index === 1 ? binaryLooks(head) : null;
        const hint = looks === null ? "" : `; the input looks like ${looks}, not JSON${looks === "MessagePack" ? `: "msgpack to-json" converts MessagePack to JSON` : ""}`;
        throw new InputError(`JSON text ${index} is not JSON: ${(e as Error).message}${hint}`);
      }
      try {
        await write(process.stdout, jsonToBytes(value));
      } catch (e) {
        throw new InputError(`JSON text ${index}: ${(e as Error).message}`);
      }
    }
  };
  try {
    for await (const raw of input) {
      const chunk = raw as Uint8Array;
      head = withHead(head, chunk);
      await emit(splitter.push(utf8.decode(chunk, { stream: true })));
    }
    await emit(splitter.push(utf8.decode()));
    await emit(splitter.end());
  } catch (e) {
    if (e instanceof JsonTooLong) throw new InputError(`${e.message}, more than from-json holds (JSON.parse takes about 22 times a text's size of this process's heap; node --max-old-space-size raises it)`);
    throw e;
  } finally {
    input.destroy();
  }
  return 0;
}


async function cmdStats(args: Args): Promise<number> {
  const useRecords = args.flags.has("--records");
  const walker = new StreamWalker({ useRecords });
  const recent = await walkInput(args, walker, false, true);
  const looks = looksLike(recent.head, useRecords);
  const top = args.numbers.get("--top") ?? 20;
  const sorted = (m: Map<string, Tally>) => [...m].sort((a, b) => b[1].bytes - a[1].bytes || (a[0] < b[0] ? -1 : 1));
  const error = walker.error;
  if (args.flags.has("--json")) {
    const out = {
      bytes: walker.offset,
      values: walker.values,
      forms: Object.fromEntries(sorted(walker.forms())),
      paths: Object.fromEntries(sorted(walker.paths).slice(0, top)),
      error: error && errorJson(error),
      // only for input that is not MessagePack
      ...(looks === null ? {} : { looksLike: looks }),
    };
    await write(process.stdout, safeJson(out, 2));
  } else {
    const paint = painter(useColor(args.flags));
    const share = (n: number) => (walker.offset === 0 ? "" : ((100 * n) / walker.offset).toFixed(1) + "%");
    const row = (name: string, t: Tally, what: "form" | "string") => `${paint(what, name.padEnd(22))} ${paint("number", String(t.count).padStart(10))} ${paint("number", String(t.bytes).padStart(12))} ${share(t.bytes).padStart(10)}`;
    const lines = [`${walker.offset} bytes (${size(walker.offset)}), ${values(walker.values)}`];
    if (looks) lines.push(paint("note", `note: the input looks like ${looks}, not MessagePack`));
    lines.push("", paint("heading", "format                      count        bytes      share"));
    for (const [name, t] of sorted(walker.forms())) lines.push(row(name, t, "form"));
    lines.push("", paint("heading", "key path                    count        bytes      share"));
    for (const [name, t] of sorted(walker.paths).slice(0, top)) lines.push(row(escapeControls(name), t, "string"));
    if (walker.paths.size > top) lines.push(paint("note", `(${walker.paths.size - top} more paths; --top N shows more)`));
    if (error) lines.push("", paint("error", `invalid: ${error.code} at offset ${error.offset}: ${escapeControls(error.message)}`));
    await write(process.stdout, lines.join("\n") + "\n");
  }
  return error ? 1 : 0;
}

/** Up to 8 bytes before and after `offset`: read again from a file, or from the last chunks of standard input when they hold it. */
function context(file: string, offset: number, recent: Recent): string {
  const from = Math.max(0, offset - 8);
  const buf = new Uint8Array(17);
  let n = 0;
  if (file === "-") {
    const held = concat(recent.prev, recent.cur);
    if (from < recent.start || offset > recent.start + held.length) return "";
    const part = held.subarray(from - recent.start, from - recent.start + buf.length);
    buf.set(part);
    n = part.length;
  } else {
    const fd = openSync(file, "r");
    try {
      n = readSync(fd, buf, 0, buf.length, from);
    } finally {
      closeSync(fd);
    }
  }
  const at = offset - from;
  const before = hexOf(buf, 0, Math.min(at, n));
  const after = hexOf(buf, Math.min(at, n), n);
  return `  bytes at ${from.toString(16)}: ${before}${before && " "}[${after.slice(0, 2) || "end"}]${after.slice(2)}\n`;
}

async function cmdValidate(args: Args): Promise<number> {
  const useRecords = args.flags.has("--records");
  const walker = new StreamWalker({ useRecords, paths: false });
  const recent = await walkInput(args, walker, true, false);
  const quiet = args.flags.has("--quiet");
  const paint = painter(useColor(args.flags));
  const error = walker.error;
  const looks = looksLike(recent.head, useRecords);
  if (looks !== null && !looks.startsWith("msgpackr records")) {
    if (!quiet) await write(process.stdout, `${paint("error", notMessagePack(looks))}\n`);
    return 1;
  }
  if (!error) {
    if (!quiet) await write(process.stdout, `valid: ${values(walker.values)}, ${walker.offset} bytes\n${looks ? paint("note", `note: it looks like ${looks}`) + "\n" : ""}`);
    return 0;
  }
  if (!quiet) await write(process.stdout, `${paint("error", `invalid: ${error.code} at offset ${error.offset} (0x${error.offset.toString(16)})`)}: ${escapeControls(error.message)}\n${context(args.file, error.offset, recent)}`);
  return 1;
}

export const COMMANDS: Record<string, (args: Args) => Promise<number>> = {
  inspect: cmdInspect,
  "to-json": cmdToJson,
  "from-json": cmdFromJson,
  stats: cmdStats,
  validate: cmdValidate,
};

