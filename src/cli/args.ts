/**
 * The `msgpack` command's words: the help of each command, the flags each
 * takes, and the two errors it exits with (usage: 2, invalid input: 1).
 *
 * @module
 */

export const HELP: Record<string, string> = {
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
export class CliError extends Error {}

/** Invalid input: exit code 1. */
export class InputError extends Error {}

export interface Args {
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

export function parseArgs(argv: string[]): Args {
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

