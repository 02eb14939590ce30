/**
 * The `msgpack` command (package.json `bin`, Node): inspect, to-json,
 * from-json, stats and validate, on files or standard input. Built by
 * `npm run build` into dist/bin/msgpack.js with esbuild's node platform;
 * the only module of src/ that uses Node's APIs (the library entries stay
 * platform-neutral). Exit codes: 0 done (valid), 1 invalid input, 2 a
 * usage error or an input that cannot be read.
 *
 * @module
 */

import { closeSync, openSync, readSync, statSync, createReadStream } from "node:fs";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { DecodeError } from "./common/errors.ts";
import { inspectSequence, type InspectResult } from "./inspect/tree.ts";
import { hexOf, renderText } from "./inspect/render.ts";
import { JsonSplitter, jsonToBytes, nodeToJson, toBase64 } from "./inspect/json.ts";
import { StreamWalker, type Tally } from "./inspect/walker.ts";
import { isoTime } from "./inspect/time.ts";
import type { InspectNode } from "./inspect/tree.ts";

const HELP: Record<string, string> = {
  main: `Usage: msgpack <command> [options] [file|-]

See inside MessagePack files and streams.

Commands:
  inspect     one line per value: offset, header bytes, format, value
  to-json     MessagePack to JSON, one line per value (lossless)
  from-json   JSON (one text per value) to MessagePack
  stats       bytes and counts per format and per key path
  validate    exit 0 for valid input, 1 with the first error

Reads the file, or standard input when the file is "-" or missing.
Run "msgpack <command> --help" for a command's options.
`,
  inspect: `Usage: msgpack inspect [options] [file|-]

Prints one line per value: offset (hex), header bytes, format and value,
indented by depth; map values under their keys. Errors are shown at their
offset. Back-to-back values are shown one after another.

Options:
  --json         the tree as JSON (one line per top-level value)
  --depth N      show containers nested deeper than N as a count
  --items N      show at most N items (entries) per container
  --width N      characters of strings, bytes of binaries shown (default 64)
  --color        colours even when the output is not a terminal
  --no-color     no colours (also NO_COLOR=1; FORCE_COLOR=1 colours a pipe)
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value
  -h, --help     this help
`,
  "to-json": `Usage: msgpack to-json [options] [file|-]

Writes each MessagePack value as one line of JSON. Values JSON lacks
(bigints, binaries, extensions, timestamps with nanoseconds, non-string
keys, -0, NaN, float 32) and forms other than the smallest are written as
one-key objects such as {"$uint64": "18446744073709551615"} or
{"$bin": "AQI="}, so "msgpack from-json" gives back the same bytes.
With --records, a record is written as the map of its field names (and
comes back from "msgpack from-json" as that map).

Options:
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value
  -h, --help     this help
`,
  "from-json": `Usage: msgpack from-json [file|-]

Reads JSON texts (one per line, or separated by whitespace) and writes
each as one MessagePack value. Plain JSON takes the forms encode() gives;
the "$" tags that "msgpack to-json" writes give the exact forms.

Options:
  -h, --help     this help
`,
  stats: `Usage: msgpack stats [options] [file|-]

Reads the input as a stream, in constant memory, and prints the bytes
and counts per format and per key path ($ is a top-level value, [] an
array item, .name a map value). On a terminal a progress line shows the
bytes read.

Options:
  --json         the numbers as JSON
  --top N        key paths shown, largest first (default 20)
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value; records are counted
                 under "record", their fields as map values
  -h, --help     this help
`,
  validate: `Usage: msgpack validate [options] [file|-]

Checks the input as decode() would, in constant memory: exit code 0 when
every value is valid, else 1 and the first error's code, offset and
message, with the bytes around it.

Options:
  -q, --quiet    print nothing, only set the exit code
  --records      read msgpackr's records (useRecords): structures
                 carry over from value to value
  -h, --help     this help
`,
};

/** A usage error or an unreadable input: exit code 2. */
class CliError extends Error {}

interface Args {
  command: string;
  file: string;
  flags: Set<string>;
  numbers: Map<string, number>;
}

const NUMBER_FLAGS = new Set(["--depth", "--items", "--width", "--top"]);
const FLAGS: Record<string, string[]> = {
  inspect: ["--json", "--color", "--no-color", "--depth", "--items", "--width", "--records"],
  "to-json": ["--records"],
  "from-json": [],
  stats: ["--json", "--top", "--records"],
  validate: ["--quiet", "-q", "--records"],
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
  return { command, file: files[0] ?? "-", flags, numbers };
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

/** The largest top-level value inspect and to-json hold at once. */
const MAX_VALUE_BYTES = 1 << 30;

/**
 * The top-level values of a stream, each as its bytes and offset; after
 * an error, the bytes of the broken value (and enough after it for the
 * decoder's checks), then stops. With `useRecords`, msgpackr's records
 * are framed as the decoder frames them.
 */
async function* valuesOf(input: Readable, useRecords: boolean): AsyncGenerator<{ bytes: Uint8Array; offset: number; broken: boolean }> {
  const walker = new StreamWalker({ useRecords });
  let parts: Uint8Array[] = [];
  let held = 0;
  let start = 0;
  const ready: { bytes: Uint8Array; offset: number; broken: boolean }[] = [];
  const take = (end: number): Uint8Array => {
    // the bytes from `start` to `end` out of the parts held
    const out = new Uint8Array(end - start);
    let at = 0;
    const keep: Uint8Array[] = [];
    for (const p of parts) {
      const n = Math.min(p.length, out.length - at);
      if (n > 0) out.set(p.subarray(0, n), at);
      at += n;
      if (n < p.length) keep.push(p.subarray(n));
    }
    parts = keep;
    held -= out.length;
    start = end;
    return out;
  };
  let chunkBase = 0;
  walker.onValue = (end) => ready.push({ bytes: new Uint8Array(0), offset: end, broken: false });
  for await (const raw of input) {
    const chunk = raw as Uint8Array;
    parts.push(chunk);
    held += chunk.length;
    walker.push(chunk);
    chunkBase += chunk.length;
    for (const v of ready.splice(0)) {
      const offset = start;
      yield { bytes: take(v.offset), offset, broken: false };
    }
    if (walker.stopped && chunkBase >= Math.max(walker.required(), start + 1)) break;
    if (held > MAX_VALUE_BYTES) throw new CliError(`the value at offset ${start} is over ${MAX_VALUE_BYTES} bytes: too large to hold; "msgpack stats" and "msgpack validate" read any size`);
  }
  if (!walker.stopped) walker.finish();
  for (const v of ready.splice(0)) {
    const offset = start;
    yield { bytes: take(v.offset), offset, broken: false };
  }
  if (held > 0 || walker.error || walker.stopped) {
    const offset = start;
    yield { bytes: take(start + held), offset, broken: true };
  }
}

/**
 * The input's values, one at a time, each with its bytes, offset and what
 * `inspect` reads in it: with --records as one sequence, so that
 * structures declared in a value stay declared for the next.
 */
async function* inspectedValues(args: Args): AsyncGenerator<{ bytes: Uint8Array; offset: number; result: InspectResult }> {
  const useRecords = args.flags.has("--records");
  const read = inspectSequence({ useRecords });
  for await (const { bytes, offset } of valuesOf(openInput(args.file), useRecords)) yield { bytes, offset, result: read(bytes, offset) };
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
  if (node.error) out.error = { code: node.error.code, offset: node.error.offset, message: node.error.message };
  return out;
}

async function cmdInspect(args: Args): Promise<number> {
  const color = useColor(args.flags);
  const json = args.flags.has("--json");
  let failed = false;
  for await (const { bytes, offset, result } of inspectedValues(args)) {
    if (json) {
      for (const node of result.nodes) await write(process.stdout, JSON.stringify(nodeJson(node, bytes, offset)) + "\n");
      if (result.error) await write(process.stdout, JSON.stringify({ error: { code: result.error.code, offset: result.error.offset, message: result.error.message } }) + "\n");
    } else {
      const options = { color, maxString: args.numbers.get("--width") ?? 64, maxDepth: args.numbers.get("--depth") ?? Infinity, maxItems: args.numbers.get("--items") ?? Infinity };
      await write(process.stdout, renderText(result, options));
    }
    if (result.error) failed = true;
  }
  return failed ? 1 : 0;
}

async function cmdToJson(args: Args): Promise<number> {
  for await (const { bytes, offset, result } of inspectedValues(args)) {
    if (result.error) {
      process.stderr.write(`msgpack to-json: invalid MessagePack: ${result.error.code}: ${result.error.message}\n`);
      return 1;
    }
    for (const node of result.nodes) await write(process.stdout, JSON.stringify(nodeToJson(node, bytes, offset)) + "\n");
  }
  return 0;
}

async function cmdFromJson(args: Args): Promise<number> {
  const input = openInput(args.file);
  input.setEncoding("utf8");
  const splitter = new JsonSplitter();
  let index = 0;
  const emit = async (texts: string[]): Promise<void> => {
    for (const text of texts) {
      index++;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw new InputError(`JSON text ${index} is not JSON: ${(e as Error).message}`);
      }
      try {
        await write(process.stdout, jsonToBytes(value));
      } catch (e) {
        throw new InputError(`JSON text ${index}: ${(e as Error).message}`);
      }
    }
  };
  try {
    for await (const chunk of input) await emit(splitter.push(chunk as string));
    await emit(splitter.end());
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    process.stderr.write(`msgpack from-json: ${e.message}\n`);
    return 1;
  }
  return 0;
}

/** "1 value", "2 values". */
function values(n: number): string {
  return `${n} value${n === 1 ? "" : "s"}`;
}

/** Invalid input: exit code 1. */
class InputError extends Error {}

/** Bytes as "12.3 MB". */
function size(n: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let u = 0;
  let x = n;
  while (x >= 1000 && u < units.length - 1) ((x /= 1000), u++);
  return u === 0 ? `${n} B` : `${x.toFixed(1)} ${units[u]}`;
}

/** Feeds the input to a walker, with a progress line on a terminal's stderr. */
async function walkInput(input: Readable, walker: StreamWalker, stopEarly: boolean): Promise<Recent> {
  const tty = Boolean(process.stderr.isTTY);
  let shown = 0;
  let last = Date.now();
  const recent: Recent = { prev: new Uint8Array(0), cur: new Uint8Array(0), start: 0 };
  for await (const raw of input) {
    const chunk = raw as Uint8Array;
    recent.start += recent.prev.length;
    recent.prev = recent.cur;
    recent.cur = chunk;
    walker.push(chunk);
    if (stopEarly && walker.error) break;
    if (tty && Date.now() - last > 250) {
      last = Date.now();
      const line = `\rread ${size(walker.offset)}, ${values(walker.values)}`;
      process.stderr.write(line);
      shown = line.length;
    }
  }
  if (shown > 0) process.stderr.write("\r" + " ".repeat(shown) + "\r");
  walker.finish();
  return recent;
}

/** The last two chunks read, and the offset of the first. */
interface Recent {
  prev: Uint8Array;
  cur: Uint8Array;
  start: number;
}

async function cmdStats(args: Args): Promise<number> {
  const walker = new StreamWalker({ useRecords: args.flags.has("--records") });
  await walkInput(openInput(args.file), walker, false);
  const top = args.numbers.get("--top") ?? 20;
  const sorted = (m: Map<string, Tally>) => [...m].sort((a, b) => b[1].bytes - a[1].bytes || (a[0] < b[0] ? -1 : 1));
  const error = walker.error;
  if (args.flags.has("--json")) {
    const out = {
      bytes: walker.offset,
      values: walker.values,
      forms: Object.fromEntries(sorted(walker.forms())),
      paths: Object.fromEntries(sorted(walker.paths).slice(0, top)),
      error: error && { code: error.code, offset: error.offset, message: error.message },
    };
    await write(process.stdout, JSON.stringify(out, null, 2) + "\n");
  } else {
    const lines = [`${walker.offset} bytes (${size(walker.offset)}), ${values(walker.values)}`, "", "format                      count        bytes      share"];
    const share = (n: number) => (walker.offset === 0 ? "" : ((100 * n) / walker.offset).toFixed(1) + "%");
    for (const [name, t] of sorted(walker.forms())) lines.push(`${name.padEnd(22)} ${String(t.count).padStart(10)} ${String(t.bytes).padStart(12)} ${share(t.bytes).padStart(10)}`);
    lines.push("", "key path                    count        bytes      share");
    for (const [name, t] of sorted(walker.paths).slice(0, top)) lines.push(`${name.padEnd(22)} ${String(t.count).padStart(10)} ${String(t.bytes).padStart(12)} ${share(t.bytes).padStart(10)}`);
    if (walker.paths.size > top) lines.push(`(${walker.paths.size - top} more paths; --top N shows more)`);
    if (error) lines.push("", `invalid: ${error.code} at offset ${error.offset}: ${error.message}`);
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
    const held = new Uint8Array(recent.prev.length + recent.cur.length);
    held.set(recent.prev);
    held.set(recent.cur, recent.prev.length);
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
  const walker = new StreamWalker({ useRecords: args.flags.has("--records") });
  const input = openInput(args.file);
  const recent = await walkInput(input, walker, true);
  input.destroy();
  const quiet = args.flags.has("--quiet");
  const error = walker.error;
  if (!error) {
    if (!quiet) await write(process.stdout, `valid: ${values(walker.values)}, ${walker.offset} bytes\n`);
    return 0;
  }
  if (!quiet) await write(process.stdout, `invalid: ${error.code} at offset ${error.offset} (0x${error.offset.toString(16)}): ${error.message}\n${context(args.file, error.offset, recent)}`);
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
  const command = COMMANDS[argv[0]!];
  if (!command) throw new CliError(`unknown command "${argv[0]}"; run msgpack --help`);
  const args = parseArgs(argv);
  if (args.flags.has("--help")) {
    process.stdout.write(HELP[args.command]!);
    return 0;
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
    if (e instanceof CliError) process.stderr.write(`msgpack: ${e.message}\n`);
    else if (e instanceof DecodeError) {
      process.stderr.write(`msgpack: ${e.code}: ${e.message}\n`);
      process.exitCode = 1;
      return;
    } else process.stderr.write(`msgpack: ${(e as { code?: string }).code ? `${(e as Error).message}` : String((e as Error)?.stack ?? e)}\n`);
    process.exitCode = 2;
  },
);
