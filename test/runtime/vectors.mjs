// Loads the shared msgpack vectors with node:fs (node, bun and deno all have
// it): the msgpack-test-suite file plus every test/vectors/*.json, as
// `{ fileName: parsedJson }` for checks.mjs.
import { readFileSync, readdirSync, existsSync } from "node:fs";

export const SUITE_URL = new URL("../../node_modules/msgpack-test-suite/dist/msgpack-test-suite.json", import.meta.url);
export const VECTORS_DIR_URL = new URL("../vectors/", import.meta.url);

export function loadVectorFiles() {
  if (!existsSync(SUITE_URL)) throw new Error(`${SUITE_URL.pathname} is missing; run npm ci`);
  const files = { "msgpack-test-suite.json": JSON.parse(readFileSync(SUITE_URL, "utf8")) };
  if (existsSync(VECTORS_DIR_URL)) {
    for (const name of readdirSync(VECTORS_DIR_URL).sort()) {
      if (name.endsWith(".json")) files[`vectors/${name}`] = JSON.parse(readFileSync(new URL(name, VECTORS_DIR_URL), "utf8"));
    }
  }
  return files;
}
