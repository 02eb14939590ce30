/**
 * The `msgpack` command (package.json `bin`, Node): inspect, to-json,
 * from-json, stats and validate, on files or standard input. Built by
 * `npm run build` into dist/bin/msgpack.js with esbuild's node platform;
 * the only module of src/ that uses Node's APIs (the library entries stay
 * platform-neutral). Exit codes: 0 done (valid), 1 invalid input, 2 a
 * usage error or an input that cannot be read. Every text it prints that
 * comes from its input (strings, keys, paths, messages that quote them)
 * goes through `escapeControls`, so a hostile file cannot drive the
 * terminal.
 *
 * @module
 */

import { closeSync, createReadStream, fstatSync, openSync, readSync, statSync } from "node:fs";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { getHeapStatistics } from "node:v8";
import pkg from "../package.json" with { type: "json" };
import { DecodeError, wrongInput } from "./common/errors.ts";
import { RecordTable } from "./records/table.ts";
import { inspectSequence, type InspectNode, type InspectResult } from "./inspect/tree.ts";
import { hexOf, painter, renderText } from "./inspect/render.ts";
import { JsonSplitter, JsonTooLong, jsonToBytes } from "./inspect/json.ts";
import { toBase64 } from "./inspect/base64.ts";
import { escapeControls } from "./inspect/escape.ts";
import { JsonWriter } from "./inspect/to-json.ts";
import { StreamWalker, type Tally } from "./inspect/walker.ts";
import { isoTime } from "./inspect/time.ts";
import { progress, size, values } from "./inspect/progress.ts";

const HELP: Record<string, string> = {
  main: `Usage: msgpack <command> [options] [file|-]

See inside MessagePack files and streams.

Commands:
  inspect     one line per value: offset, header bytes, format, value
  to-json     MessagePack to JSON, one line per value (lossless)
  from-json   JSON (one text per value) to MessagePack
  stats       bytes and counts per format and per key path
  validate    exit 0 for valid input, 1 with the first error

Examples:
  msgpack inspect --depth 2 dump.msgpack
  msgpack to-json dump.msgpack > dump.json
  msgpack from-json dump.json > again.msgpack
  msgpack stats --top 10 dump.msgpack
  msgpack validate dump.msgpack && echo valid

Reads the file, or standard input when the file is "-" or missing.
Run "msgpack <command> --help" for a command's options;
"msgpack --version" (or -V) prints the version.
`,
  inspect: `Usage: msgpack inspect [options] [file|-]

Prints one line per value: offset (hex), header bytes, format and value,
indented by depth; map values under their keys. Errors are shown at their
offset. Back-to-back values are shown one after another. Holds one
top-level value's bytes at a time, and a window of its first 10,000
nodes (--nodes N for more): the rest is read and checked, counted as
"... N more items", not shown. Memory: the value's bytes plus about
1 kB of heap per node shown; a value over an eighth of the heap is
refused with exit 1 ("msgpack to-json", "msgpack stats" and "msgpack
validate" read any size).

Options:
  --json         the tree as JSON (one line per top-level value)
  --depth N      show containers nested deeper than N as a count
  --items N      show at most N items (entries) per container
  --nodes N      show the first N nodes of a value (default 10000)
  --width N      characters of strings, bytes of binaries shown (default 64)
  --color        colours even when the output is not a terminal
  --no-color     no colours (also NO_COLOR=1; FORCE_COLOR=1 colours a pipe)
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value
  -h, --help     this help

Example:
  msgpack inspect --depth 1 --items 5 dump.msgpack | less -R
`,
  "to-json": `Usage: msgpack to-json [options] [file|-]

Writes each MessagePack value as one line of JSON. Values JSON lacks
(bigints, binaries, extensions, timestamps with nanoseconds, non-string
keys, -0, NaN, float 32) and forms other than the smallest are written as
one-key objects such as {"$uint64": "18446744073709551615"} or
{"$bin": "AQI="}, so "msgpack from-json" gives back the same bytes.
With --records, a record is written as the map of its field names (and
comes back from "msgpack from-json" as that map). Writes as it reads,
holding one top-level value's bytes at a time.

Options:
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value
  -h, --help     this help

Example:
  msgpack to-json dump.msgpack > dump.json
`,
  "from-json": `Usage: msgpack from-json [file|-]

Reads JSON texts (one per line, or separated by whitespace) and writes
each as one MessagePack value. Plain JSON takes the forms encode() gives;
the "$" tags that "msgpack to-json" writes give the exact forms. Does not
write MessagePack to a terminal: redirect or pipe the output.

Options:
  -h, --help     this help

Example:
  msgpack from-json dump.json > again.msgpack
`,
  stats: `Usage: msgpack stats [options] [file|-]

Reads the input as a stream, in constant memory, and prints the bytes
and counts per format and per key path ($ is a top-level value, [] an
array item, .name a map value). On a terminal a progress line shows the
bytes read (with the share and the time left, when the size is known).

Options:
  --json         the numbers as JSON
  --top N        key paths shown, largest first (default 20)
  --color        colours even when the output is not a terminal
  --no-color     no colours (also NO_COLOR=1; FORCE_COLOR=1 colours a pipe)
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value; records are counted
                 under "record", their fields as map values
  -h, --help     this help

Example:
  msgpack stats --top 10 dump.msgpack
`,
  validate: `Usage: msgpack validate [options] [file|-]

Checks the input as decode() would, in constant memory: exit code 0 when
every value is valid, else 1 and the first error's code, offset and
message, with the bytes around it. Input that is text, JSON, HTML or
XML, or gzip or zstd data is named as such and fails.

Options:
  -q, --quiet    print nothing, only set the exit code
  --color        colours even when the output is not a terminal
  --no-color     no colours (also NO_COLOR=1; FORCE_COLOR=1 colours a pipe)
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value
  -h, --help     this help

Example:
  msgpack validate -q upload.msgpack || echo "not MessagePack"
`,
};

/** A usage error or an unreadable input: exit code 2. */
class CliError extends Error {}

/** Invalid input: exit code 1. */
class InputError extends Error {}

interface Args {
  command: string;
  /** The file named, or "-" for standard input (named "-", or no file named: see `named`). */
  file: string;
  /** Whether a file (or "-") was named. */
  named: boolean;
  flags: Set<string>;
  numbers: Map<string, number>;
}

const NUMBER_FLAGS = new Set(["--depth", "--items", "--width", "--top", "--nodes"]);
const FLAGS: Record<string, string[]> = {
  inspect: ["--json", "--color", "--no-color", "--depth", "--items", "--width", "--nodes", "--records"],
  "to-json": ["--records"],
  "from-json": [],
  stats: ["--json", "--top", "--color", "--no-color", "--records"],
  validate: ["--quiet", "-q", "--color", "--no-color", "--records"],
};

function parseArgs(argv: string[]): Args {
  const [command = "", ...rest] = argv;
  const flags = new Set<string>();
  const numbers = new Map<string, number>();
  const files: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === "-h" || a === "--help") flags.add("--help");
    else if (a === "-" || !a.startsWith("-")) files.push(a);
    else {
      const [name, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
      if (!(FLAGS[command] ?? []).includes(name!)) throw new CliError(`unknown option ${name} for ${command || "msgpack"}`);
      if (NUMBER_FLAGS.has(name!)) {
        const text = inline ?? rest[++i];
        const n = Number(text);
        if (text === undefined || !Number.isInteger(n) || n < 0) throw new CliError(`${name} takes a whole number, not ${text ?? "nothing"}`);
        numbers.set(name!, n);
      } else flags.add(name === "-q" ? "--quiet" : name!);
    }
  }
  if (files.length > 1) throw new CliError(`one input at a time, not ${files.length}: ${files.join(" ")}`);
  return { command, file: files[0] ?? "-", named: files.length > 0, flags, numbers };
}

/** The input as a stream of byte chunks (a file by streams: any size), or a CliError for a missing file or a directory. */
function openInput(file: string): Readable {
  if (file === "-") return process.stdin;
  let isDir: boolean;
  try {
    isDir = statSync(file).isDirectory();
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new CliError(code === "ENOENT" ? `${file}: no such file` : `${file}: cannot read (${code ?? String(e)})`);
  }
  if (isDir) throw new CliError(`${file}: is a directory, not a file`);
  return createReadStream(file, { highWaterMark: 1 << 20 });
}

/**
 * The input's chunks, as {@link openInput} reads them. With `check`, its
 * first bytes are looked at first: input that is text, JSON, HTML or XML,
 * or gzip or zstd data (not msgpackr's records: a note elsewhere) is an
 * InputError that names it, as `validate` does, before any is read.
 */
async function inputChunks(args: Args, check: boolean): Promise<AsyncGenerator<Uint8Array>> {
  const input = openInput(args.file);
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  const head: Uint8Array[] = [];
  let held = 0;
  let ended = false;
  try {
    while (check && held < HEAD_BYTES) {
      const r = await it.next();
      if (r.done) {
        ended = true;
        break;
      }
      head.push(r.value);
      held += r.value.length;
    }
    const looks = check ? looksLike(head.reduce(concat, new Uint8Array(0)).subarray(0, HEAD_BYTES), args.flags.has("--records")) : null;
    if (looks !== null && !looks.startsWith("msgpackr records")) {
      const convert = looks === "JSON text" ? `; "msgpack from-json" converts JSON to MessagePack` : "";
      throw new InputError(`invalid: the input looks like ${looks}, not MessagePack${convert}`);
    }
  } catch (e) {
    input.destroy();
    throw e;
  }
  return (async function* () {
    try {
      yield* head;
      if (!ended) for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    } finally {
      input.destroy();
    }
  })();
}

/** The size of the input when it is a regular file (standard input too, when redirected from one), else null. */
function inputSize(file: string): number | null {
  try {
    const st = file === "-" ? fstatSync(0) : statSync(file);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

/** Writes to stdout, waiting when its buffer is full. */
async function write(out: Writable, text: string | Uint8Array): Promise<void> {
  if (!out.write(text)) await new Promise<void>((resolve) => out.once("drain", resolve));
}

/** Whether stdout gets colours: --color or --no-color; else not with NO_COLOR set, else on a terminal or with FORCE_COLOR set. */
function useColor(flags: Set<string>): boolean {
  if (flags.has("--no-color")) return false;
  if (flags.has("--color")) return true;
  if ((process.env.NO_COLOR ?? "") !== "") return false;
  const force = process.env.FORCE_COLOR ?? "";
  return Boolean(process.stdout.isTTY) || (force !== "" && force !== "0");
}

/** The largest top-level value to-json holds (its bytes, outside the JS heap). */
const MAX_VALUE_BYTES = 1 << 30;

/**
 * The JS heap this process may use (node --max-old-space-size sets it):
 * what inspect's trees and from-json's parsed texts are measured against,
 * so that a value too large for them is refused with a clear error, not
 * left to abort the process.
 */
const HEAP_BYTES = getHeapStatistics().heap_size_limit;

/**
 * The largest value `inspect` reads: its bytes are held outside the heap,
 * but each string in it is decoded whole (up to twice its bytes of heap,
 * and copies while it is shown).
 */
const MAX_INSPECT_BYTES = Math.min(Math.floor(HEAP_BYTES / 8), MAX_VALUE_BYTES);

/** The nodes of a value `inspect` shows by default (its window): a tree node and its line take about 1 kB of heap. */
const INSPECT_NODES = 10_000;

/** The most nodes `inspect --nodes` keeps: a sixteenth of the heap at 1 kB each. */
const MAX_INSPECT_NODES = Math.max(INSPECT_NODES, Math.floor(HEAP_BYTES / 16 / 1024));

/**
 * The longest JSON text from-json reads: `JSON.parse` takes about 22
 * times a text's characters for small objects (measured), and the text and
 * the pieces it is joined from are held too.
 */
const MAX_JSON_CHARS = Math.min(Math.floor(HEAP_BYTES / 48), (1 << 29) - 24);

/** A value too large for `command` to hold (`why`: what it takes); the message names the commands that read it. */
function tooLarge(command: string, offset: number, max: number, why: string): InputError {
  const others = (command === "to-json" ? ["stats", "validate"] : ["to-json", "stats", "validate"]).map((c) => `"msgpack ${c}"`);
  return new InputError(`the value at offset ${offset} is over ${max} bytes, more than ${command} can hold (${why}); ${others.slice(0, -1).join(", ")} and ${others.at(-1)} read it`);
}

/** A top-level value's bytes and offset; `broken`: the bytes of a value in error (the walker's `error` says which). */
interface Part {
  bytes: Uint8Array;
  offset: number;
  broken: boolean;
}

/**
 * The top-level values of a stream, each as its bytes and offset, framed
 * and checked by a {@link StreamWalker} (the decoder's checks and errors);
 * after an error, the bytes of the broken value (and enough after it for
 * the decoder's checks), then stops. The values a chunk completes come
 * together (an await per value would cost more than small values take to
 * read). With `useRecords`, msgpackr's
 * records are framed as the decoder frames them. A value over `maxBytes`
 * is refused by `refuse` as soon as that many of its bytes are read.
 */
async function* valuesOf(input: AsyncIterable<Uint8Array>, walker: StreamWalker, maxBytes: number, refuse: (offset: number) => Error): AsyncGenerator<Part[]> {
  let parts: Uint8Array[] = [];
  let held = 0;
  let start = 0;
  const ends: number[] = [];
  const take = (end: number): Uint8Array => {
    // the bytes from `start` to `end` out of the parts held: a view when one part holds them, else a copy
    const first = parts[0];
    if (first === undefined || end === start) return new Uint8Array(0);
    if (end - start < first.length) {
      parts[0] = first.subarray(end - start);
      held -= end - start;
      const out = first.subarray(0, end - start);
      start = end;
      return out;
    }
    const out = new Uint8Array(end - start);
    let at = 0;
    const keep: Uint8Array[] = [];
    for (const p of parts) {
      const n = Math.min(p.length, out.length - at);
      if (n > 0) out.set(p.subarray(0, n), at);
      at += n;
      if (n < p.length) keep.push(n === 0 ? p : p.subarray(n));
    }
    parts = keep;
    held -= out.length;
    start = end;
    return out;
  };
  let read = 0;
  walker.onValue = (end) => ends.push(end);
  for await (const chunk of input) {
    parts.push(chunk);
    held += chunk.length;
    walker.push(chunk);
    read += chunk.length;
    if (ends.length > 0) yield ends.splice(0).map((end) => ({ offset: start, bytes: take(end), broken: false }));
    if (walker.stopped && read >= Math.max(walker.required(), start + 1)) break;
    if (held > maxBytes && !walker.stopped) throw refuse(start);
  }
  if (!walker.stopped) walker.finish();
  if (ends.length > 0) yield ends.splice(0).map((end) => ({ offset: start, bytes: take(end), broken: false }));
  if (held > 0 || walker.error || walker.stopped) {
    if (!walker.error) walker.finish();
    if (held > maxBytes) throw refuse(start);
    yield [{ offset: start, bytes: take(start + held), broken: true }];
  }
}

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
      if (head.length < HEAD_BYTES) head = concat(head, chunk.subarray(0, HEAD_BYTES - head.length));
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

/**
 * What input that is not JSON looks like, when it is binary: compressed
 * data, msgpackr's records, or (a control character or a byte over 0x7f
 * first) MessagePack; null for text.
 */
function binaryLooks(head: Uint8Array): string | null {
  const looks = head.length === 0 ? null : wrongInput(head);
  if (looks !== null) return looks.endsWith(" data") ? looks : looks.startsWith("msgpackr records") ? "MessagePack" : null;
  const control = head.subarray(0, 64).some((c) => (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f);
  return control || head[0]! >= 0x80 ? "MessagePack" : null;
}

/** Feeds the input to a walker, with a progress line on a terminal's stderr; returns the last chunks read and the input's first bytes. */
async function walkInput(args: Args, walker: StreamWalker, stopEarly: boolean, check: boolean): Promise<Recent> {
  const input = await inputChunks(args, check);
  const total = inputSize(args.file);
  const tty = Boolean(process.stderr.isTTY);
  let shown = 0;
  const began = Date.now();
  let last = began;
  const recent: Recent = { prev: new Uint8Array(0), cur: new Uint8Array(0), start: 0, head: new Uint8Array(0) };
  try {
    for await (const chunk of input) {
      recent.start += recent.prev.length;
      recent.prev = recent.cur;
      recent.cur = chunk;
      if (recent.head.length < HEAD_BYTES) recent.head = concat(recent.head, chunk.subarray(0, HEAD_BYTES - recent.head.length));
      walker.push(chunk);
      if (stopEarly && walker.error) break;
      const now = Date.now();
      if (tty && now - last > 250) {
        last = now;
        const line = progress(walker.offset, total, walker.values, now - began);
        process.stderr.write("\r" + line.padEnd(shown));
        shown = line.length;
      }
    }
  } finally {
    await input.return(undefined);
  }
  if (shown > 0) process.stderr.write("\r" + " ".repeat(shown) + "\r");
  walker.finish();
  return recent;
}

/** Bytes of the input's start that {@link wrongInput} looks at. */
const HEAD_BYTES = 128;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The last two chunks read, the offset of the first, and the input's first bytes. */
interface Recent {
  prev: Uint8Array;
  cur: Uint8Array;
  start: number;
  head: Uint8Array;
}

/**
 * What the input looks like when it is not MessagePack at all (text,
 * JSON, HTML or XML, gzip or zstd data, or msgpackr's records read
 * without --records), named as `decode` names it; null otherwise. With
 * --records only compressed data is named: record identifiers
 * (0x40-0x7f) and small field values are printable bytes.
 */
function looksLike(head: Uint8Array, useRecords: boolean): string | null {
  const looks = head.length === 0 ? null : wrongInput(head);
  return looks !== null && useRecords && !looks.endsWith(" data") ? null : looks;
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
    if (!quiet) await write(process.stdout, `${paint("error", `invalid: the input looks like ${looks}, not MessagePack`)}\n`);
    return 1;
  }
  if (!error) {
    if (!quiet) await write(process.stdout, `valid: ${values(walker.values)}, ${walker.offset} bytes\n${looks ? paint("note", `note: it looks like ${looks}`) + "\n" : ""}`);
    return 0;
  }
  if (!quiet) await write(process.stdout, `${paint("error", `invalid: ${error.code} at offset ${error.offset} (0x${error.offset.toString(16)})`)}: ${escapeControls(error.message)}\n${context(args.file, error.offset, recent)}`);
  return 1;
}

const COMMANDS: Record<string, (args: Args) => Promise<number>> = {
  inspect: cmdInspect,
  "to-json": cmdToJson,
  "from-json": cmdFromJson,
  stats: cmdStats,
  validate: cmdValidate,
};

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "-h" || argv[0] === "--help" || argv[0] === "help") {
    process.stdout.write(HELP.main!);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === "--version" || argv[0] === "-V") {
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const command = COMMANDS[argv[0]!];
  if (!command) throw new CliError(`unknown command "${argv[0]}"; run msgpack --help`);
  const args = parseArgs(argv);
  if (args.flags.has("--help")) {
    process.stdout.write(HELP[args.command]!);
    return 0;
  }
  if (!args.named && process.stdin.isTTY) {
    // nothing piped in and no file named: the usage, not a wait for typed input ("-" reads the terminal)
    process.stderr.write(`msgpack ${args.command}: no input: name a file, or pipe the input in\n`);
    process.stdout.write(HELP[args.command]!);
    return 2;
  }
  return command(args);
}

// stdout closed early (msgpack ... | head): stop quietly
process.stdout.on("error", (e: { code?: string }) => {
  if (e.code === "EPIPE") process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // every message may quote the input (a file name, a key, a JSON snippet): printed with its controls escaped
    const command = e instanceof InputError && COMMANDS[process.argv[2] ?? ""] ? ` ${process.argv[2]}` : "";
    const say = (text: string) => process.stderr.write(`msgpack${command}: ${escapeControls(text)}\n`);
    if (e instanceof CliError) say(e.message);
    else if (e instanceof InputError) {
      say(e.message);
      process.exitCode = 1;
      return;
    } else if (e instanceof DecodeError) {
      say(`${e.code}: ${e.message}`);
      process.exitCode = 1;
      return;
    } else say((e as { code?: string }).code ? `${(e as Error).message}` : String((e as Error)?.stack ?? e));
    process.exitCode = 2;
  },
);
