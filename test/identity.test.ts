// One class identity per process: an application can load the package
// several times (its ESM and its CommonJS build, a bundled browser copy,
// two versions in node_modules), and `instanceof DecodeError`,
// `instanceof EncodeError` and `instanceof ExtData` must hold for a value
// made by any copy, tested against the class of any other copy. A user's
// subclass keeps ordinary `instanceof`. Run in a fresh Node process that
// loads every build the package ships: the ESM and CJS builds of the main
// and streams entries, and the browser bundles (ESM by import, IIFE by
// evaluating the script).
import { join } from "node:path";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, assertBuilt, explain, run } from "./tools/harness.ts";

const CHECK = String.raw`
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

const dist = process.argv[2];
const require = createRequire(import.meta.url);
const esm = (file) => import(pathToFileURL(dist + "/" + file).href);
const iife = (file, global) => {
  vm.runInThisContext(readFileSync(dist + "/" + file, "utf8"), { filename: file });
  return globalThis[global];
};

/** Every copy of the codec classes this process can load, by name. */
const copies = {
  "ESM .": await esm("index.js"),
  "CJS .": require(dist + "/index.cjs"),
  "browser msgpack.min.js": await esm("browser/msgpack.min.js"),
  "browser msgpack-streams.min.js": await esm("browser/msgpack-streams.min.js"),
  "browser msgpack.iife.min.js": iife("browser/msgpack.iife.min.js", "ResizableMsgpack"),
};
/** Stream decoders, by copy. */
const streams = {
  "ESM ./streams": await esm("streams.js"),
  "CJS ./streams": require(dist + "/streams.cjs"),
  "browser msgpack-streams.min.js": copies["browser msgpack-streams.min.js"],
};

const classes = { DecodeError: [], EncodeError: [], ExtData: [] };
for (const [name, lib] of Object.entries(copies)) {
  for (const cls of Object.keys(classes)) {
    assert.equal(typeof lib[cls], "function", name + " exports " + cls);
    classes[cls].push([name, lib[cls]]);
  }
}
// The copies really are distinct classes (else the test would prove nothing).
for (const list of Object.values(classes)) assert.ok(new Set(list.map(([, c]) => c)).size >= 5);

/** What each copy makes: [made by, kind, value]. */
const made = [];
const thrown = (f) => { try { f(); } catch (e) { return e; } throw new Error("did not throw"); };
for (const [name, lib] of Object.entries(copies)) {
  made.push([name, "DecodeError", thrown(() => lib.decode(Uint8Array.of(0xc1)))]);
  made.push([name, "EncodeError", thrown(() => lib.encode(() => 1))]);
  made.push([name, "ExtData", lib.decode(Uint8Array.of(0xd4, 0x05, 0x2a))]);
}
for (const [name, s] of Object.entries(streams)) {
  const error = await s.decodeAsync((async function* () { yield Uint8Array.of(0xc1); })()).then(() => { throw new Error("resolved"); }, (e) => e);
  made.push([name, "DecodeError", error]);
  made.push([name, "ExtData", await s.decodeAsync((async function* () { yield Uint8Array.of(0xd4, 0x05); yield Uint8Array.of(0x2a); })())]);
}

let checks = 0;
for (const [maker, kind, value] of made) {
  for (const [cls, list] of Object.entries(classes)) {
    for (const [owner, C] of list) {
      assert.equal(value instanceof C, cls === kind, maker + "'s " + kind + " instanceof " + owner + "'s " + cls);
      checks++;
    }
  }
}
// The built-in bases stay true, and foreign errors are not ours.
for (const [maker, kind, value] of made) {
  if (kind === "DecodeError") assert.ok(value instanceof RangeError && value instanceof Error, maker);
  if (kind === "EncodeError") assert.ok(value instanceof Error, maker);
}
for (const [owner, C] of classes.DecodeError) assert.equal(new RangeError("x") instanceof C, false, owner);
for (const [owner, C] of classes.ExtData) assert.equal({ type: 5, data: Uint8Array.of(42) } instanceof C, false, owner);

// A user's subclass: ordinary instanceof, in both directions.
const esmLib = copies["ESM ."];
const cjsLib = copies["CJS ."];
class MyDecodeError extends esmLib.DecodeError {}
class MyExt extends cjsLib.ExtData {}
const mine = new MyDecodeError("mine", 3, "INVALID_BYTE");
assert.ok(mine instanceof MyDecodeError && mine instanceof esmLib.DecodeError && mine instanceof cjsLib.DecodeError && mine instanceof RangeError);
assert.equal(thrown(() => esmLib.decode(Uint8Array.of(0xc1))) instanceof MyDecodeError, false);
assert.equal(thrown(() => cjsLib.decode(Uint8Array.of(0xc1))) instanceof MyDecodeError, false);
const ext = new MyExt(5, Uint8Array.of(1));
assert.ok(ext instanceof MyExt && ext instanceof cjsLib.ExtData && ext instanceof esmLib.ExtData);
assert.equal(new esmLib.ExtData(5, Uint8Array.of(1)) instanceof MyExt, false);
class MyDeeper extends MyDecodeError {}
assert.ok(new MyDeeper("x", 0, "INVALID_BYTE") instanceof MyDecodeError);
assert.equal(mine instanceof MyDeeper, false);

console.log("IDENTITY_OK " + checks);
`;

let work: string;
beforeAll(() => {
  assertBuilt();
  work = mkdtempSync(join(tmpdir(), "msgpack-identity-"));
  writeFileSync(join(work, "check.mjs"), CHECK);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test("DecodeError, EncodeError and ExtData from any build are instanceof every build's class; subclasses are ordinary", async () => {
  const r = await run(process.execPath, [join(work, "check.mjs"), join(ROOT, "dist")], { timeout: 60_000 });
  expect(r.code, explain("check.mjs", r)).toBe(0);
  const checks = Number(/^IDENTITY_OK (\d+)$/m.exec(r.stdout)?.[1]);
  // 5 copies x 3 kinds + 3 stream copies x 2 kinds, each against 15 classes
  expect(checks).toBe((5 * 3 + 3 * 2) * 15);
});
