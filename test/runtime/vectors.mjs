// Loads the shared msgpack vectors with node:fs (node, bun and deno all have
// it): the msgpack-test-suite file plus every test/vectors/*.json, as
// `{ fileName: parsedJson }` for readVectors() in test/_support/fixtures.mjs.
import { readFileSync, readdirSync, existsSync } from "node:fs";

export const SUITE_URL = new URL("../node_modules/msgpack-test-suite/dist/msgpack-test-suite.json", import.meta.url);
export const VECTORS_DIR_URL = new URL("../vectors/", import.meta.url);

/**
 * @param {{ suite?: boolean | "if-installed" }} [options] suite: "if-installed"
 *   leaves out the msgpack-test-suite file when node_modules lacks it (a
 *   checkout without `npm ci`, as `deno task smoke` may run in)
 */
export function loadVectorFiles({ suite = true } = {}) {
  /** @type {Record<string, unknown>} */
  const files = {};
  if (suite === "if-installed" && !existsSync(SUITE_URL)) {
    console.log(`msgpack-test-suite is not installed (no npm ci): checking test/vectors/*.json only`);
  } else if (suite) {
    if (!existsSync(SUITE_URL)) throw new Error(`${SUITE_URL.pathname} is missing; run npm ci`);
    files["msgpack-test-suite.json"] = JSON.parse(readFileSync(SUITE_URL, "utf8"));
  }
  if (existsSync(VECTORS_DIR_URL)) {
    for (const name of readdirSync(VECTORS_DIR_URL).sort()) {
      if (name.endsWith(".json")) files[`vectors/${name}`] = JSON.parse(readFileSync(new URL(name, VECTORS_DIR_URL), "utf8"));
    }
  }
  return files;
}
