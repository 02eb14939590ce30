/**
 * Runs a module script in a child Node process at several `--stack-size`s
 * and returns what each printed, parsed as JSON: for tests of stack
 * overflows, where a crash would end the test worker and where the
 * overflow lands depends on the stack size.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built package's dist/ folder, with a trailing slash, for the child's imports. */
export const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));

/** Runs `script` (an ES module) once per stack size; resolves to `[stackSize, parsed stdout]` pairs, rejects with the child's stderr if one fails. */
export async function atStackSizes(script: string, stackSizes: readonly number[]): Promise<Array<[number, unknown]>> {
  const out: Array<[number, unknown]> = [];
  for (const stackSize of stackSizes) {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [`--stack-size=${stackSize}`, "--input-type=module", "-e", script], { maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
        err ? reject(new Error(`--stack-size=${stackSize}: ${err.message}\n${stderr.slice(0, 500)}`)) : resolve(stdout),
      );
    });
    out.push([stackSize, JSON.parse(stdout)]);
  }
  return out;
}
