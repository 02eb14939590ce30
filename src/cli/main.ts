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

import process from "node:process";
import pkg from "../../package.json" with { type: "json" };
import { DecodeError } from "../common/errors.ts";
import { escapeControls } from "../inspect/escape.ts";
import { CliError, HELP, InputError, parseArgs } from "./args.ts";
import { COMMANDS } from "./commands.ts";

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
