/**
 * The `msgpack` command's input and output: the input as chunks (a file
 * or standard input, its first bytes looked at), its top-level values
 * framed by a {@link StreamWalker}, the limits on what a command holds,
 * and writing to stdout.
 *
 * @module
 */

import { createReadStream, fstatSync, statSync } from "node:fs";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { getHeapStatistics } from "node:v8";
import { wrongInput } from "../common/errors.ts";
import { progress } from "../inspect/progress.ts";
import type { StreamWalker } from "../inspect/walker.ts";
import { type Args, CliError, InputError } from "./args.ts";

/** The input as a stream of byte chunks (a file by streams: any size), or a CliError for a missing file or a directory. */
export function openInput(file: string): Readable {
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
export async function inputChunks(args: Args, check: boolean): Promise<AsyncGenerator<Uint8Array>> {
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
    const looks = check ? looksLike(head.reduce(withHead, new Uint8Array(0)), args.flags.has("--records")) : null;
    if (looks !== null && !looks.startsWith("msgpackr records")) {
      const convert = looks === "JSON text" ? `; "msgpack from-json" converts JSON to MessagePack` : "";
      throw new InputError(`${notMessagePack(looks)}${convert}`);
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
export function inputSize(file: string): number | null {
  try {
    const st = file === "-" ? fstatSync(0) : statSync(file);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

/** Writes to stdout, waiting when its buffer is full. */
export async function write(out: Writable, text: string | Uint8Array): Promise<void> {
  if (!out.write(text)) await new Promise<void>((resolve) => out.once("drain", resolve));
}

/** Whether stdout gets colours: --color or --no-color; else not with NO_COLOR set, else on a terminal or with FORCE_COLOR set. */
export function useColor(flags: Set<string>): boolean {
  if (flags.has("--no-color")) return false;
  if (flags.has("--color")) return true;
  if ((process.env.NO_COLOR ?? "") !== "") return false;
  const force = process.env.FORCE_COLOR ?? "";
  return Boolean(process.stdout.isTTY) || (force !== "" && force !== "0");
}

/** The largest top-level value to-json holds (its bytes, outside the JS heap). */
export const MAX_VALUE_BYTES = 1 << 30;

/**
 * The JS heap this process may use (node --max-old-space-size sets it):
 * what inspect's trees and from-json's parsed texts are measured against,
 * so that a value too large for them is refused with a clear error, not
 * left to abort the process.
 */
export const HEAP_BYTES = getHeapStatistics().heap_size_limit;

/**
 * The largest value `inspect` reads: its bytes are held outside the heap,
 * but each string in it is decoded whole (up to twice its bytes of heap,
 * and copies while it is shown).
 */
export const MAX_INSPECT_BYTES = Math.min(Math.floor(HEAP_BYTES / 8), MAX_VALUE_BYTES);

/** The nodes of a value `inspect` shows by default (its window): a tree node and its line take about 1 kB of heap. */
export const INSPECT_NODES = 10_000;

/** The most nodes `inspect --nodes` keeps: a sixteenth of the heap at 1 kB each. */
export const MAX_INSPECT_NODES = Math.max(INSPECT_NODES, Math.floor(HEAP_BYTES / 16 / 1024));

/**
 * The longest JSON text from-json reads: `JSON.parse` takes about 22
 * times a text's characters for small objects (measured), and the text and
 * the pieces it is joined from are held too.
 */
export const MAX_JSON_CHARS = Math.min(Math.floor(HEAP_BYTES / 48), (1 << 29) - 24);

/** A value too large for `command` to hold (`why`: what it takes); the message names the commands that read it. */
export function tooLarge(command: string, offset: number, max: number, why: string): InputError {
  const others = (command === "to-json" ? ["stats", "validate"] : ["to-json", "stats", "validate"]).map((c) => `"msgpack ${c}"`);
  return new InputError(`the value at offset ${offset} is over ${max} bytes, more than ${command} can hold (${why}); ${others.slice(0, -1).join(", ")} and ${others.at(-1)} read it`);
}

/** A top-level value's bytes and offset; `broken`: the bytes of a value in error (the walker's `error` says which). */
export interface Part {
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
export async function* valuesOf(input: AsyncIterable<Uint8Array>, walker: StreamWalker, maxBytes: number, refuse: (offset: number) => Error): AsyncGenerator<Part[]> {
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
 * What input that is not JSON looks like, when it is binary: compressed
 * data, msgpackr's records, or (a control character or a byte over 0x7f
 * first) MessagePack; null for text.
 */
export function binaryLooks(head: Uint8Array): string | null {
  const looks = looksLike(head, false);
  if (looks !== null) return looks.endsWith(" data") ? looks : looks.startsWith("msgpackr records") ? "MessagePack" : null;
  const control = head.subarray(0, 64).some((c) => (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f);
  return control || head[0]! >= 0x80 ? "MessagePack" : null;
}

/** Feeds the input to a walker, with a progress line on a terminal's stderr; returns the last chunks read and the input's first bytes. */
export async function walkInput(args: Args, walker: StreamWalker, stopEarly: boolean, check: boolean): Promise<Recent> {
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
      recent.head = withHead(recent.head, chunk);
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
export const HEAD_BYTES = 128;

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The input's first bytes ({@link HEAD_BYTES}), `head` so far then `chunk`. */
export function withHead(head: Uint8Array, chunk: Uint8Array): Uint8Array {
  return head.length < HEAD_BYTES ? concat(head, chunk.subarray(0, HEAD_BYTES - head.length)) : head;
}

/** What a command says of input that `looks` like something else. */
export function notMessagePack(looks: string): string {
  return `invalid: the input looks like ${looks}, not MessagePack`;
}

/** The last two chunks read, the offset of the first, and the input's first bytes. */
export interface Recent {
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
export function looksLike(head: Uint8Array, useRecords: boolean): string | null {
  const looks = head.length === 0 ? null : wrongInput(head);
  return looks !== null && useRecords && !looks.endsWith(" data") ? null : looks;
}
