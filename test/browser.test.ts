// Runs the shared vectors and seeded round trips (test/runtime/checks.mjs)
// inside headless Chromium against the browser bundles in dist/browser/: the
// minified ESM bundle, the IIFE bundle through its global, the ESM bundle
// inside a module Worker, and the ESM bundle that adds the streams API.
// Every response carries a strict Content-Security-Policy (no 'unsafe-eval',
// no inline script), so a bundle that used eval or new Function would fail.
//
// Chromium is Debian's `chromium` (apt-get install chromium), driven by
// playwright-core with executablePath; .ci/run installs it when CI is set.
// Without it: in CI this test fails; elsewhere it is skipped with a message.
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT, assertBuilt } from "./tools/harness.ts";
import { loadVectorFiles } from "./runtime/vectors.mjs";
import { chromiumAvailable, launchChromium } from "./_support/chromium.ts";

const RUNS = chromiumAvailable("browser.test");

const CSP = "default-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'";

const GLOBAL_NAME = "ResizableMsgpack";

/** The plain-JS test modules the pages import, served at their paths in the repository (checks.mjs imports fixtures.mjs). */
const MODULES = ["test/runtime/checks.mjs", "test/_support/fixtures.mjs"];

/** Page scripts. Each sets `window.smoke` to a promise of the summary. */
const SCRIPTS: Record<string, string> = {
  "/run-esm.mjs": `
    import * as lib from "/dist/browser/msgpack.min.js";
    import { runAll } from "/test/runtime/checks.mjs";
    window.smoke = fetch("/vectors.json").then((r) => r.json()).then((files) => runAll(lib, files, { seed: 11 }));
  `,
  "/run-iife.mjs": `
    import { runAll } from "/test/runtime/checks.mjs";
    const lib = globalThis.${GLOBAL_NAME};
    window.smoke = lib
      ? fetch("/vectors.json").then((r) => r.json()).then((files) => runAll(lib, files, { seed: 12 }))
      : Promise.reject(new Error("the IIFE bundle did not define globalThis.${GLOBAL_NAME}"));
  `,
  "/run-streams.mjs": `
    import * as lib from "/dist/browser/msgpack-streams.min.js";
    import { runAll } from "/test/runtime/checks.mjs";
    window.smoke = fetch("/vectors.json").then((r) => r.json()).then((files) => runAll(lib, files, { seed: 14, count: 200, streams: lib }));
  `,
  "/run-worker.mjs": `
    window.smoke = new Promise((resolve, reject) => {
      const worker = new Worker("/worker.mjs", { type: "module" });
      worker.onmessage = (e) => (e.data.ok ? resolve(e.data.summary) : reject(new Error(e.data.error)));
      worker.onerror = (e) => reject(new Error("worker error: " + (e.message || "unknown")));
    });
  `,
  "/probe.mjs": `
    let evalBlocked;
    try {
      new Function("return 1")();
      evalBlocked = false;
    } catch (e) {
      evalBlocked = e instanceof EvalError;
    }
    window.smoke = Promise.resolve({ evalBlocked });
  `,
  "/run-records.mjs": `
    import { decode, encode } from "/dist/records.js";
    // (the probe page shows this CSP refuses new Function) 300 records of two structures: past the reads after which a reader would be compiled
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, name: "user " + i, tags: ["a", "b"].slice(i % 3), addr: { city: "Paris", zip: String(75000 + i) } }));
    const bytes = encode(rows, { useRecords: true });
    const json = (v) => JSON.stringify(v);
    window.smoke = Promise.resolve({
      records: json(decode(bytes, { useRecords: true })) === json(rows),
      plain: json(decode(bytes, { useRecords: true, compileRecordReaders: false })) === json(rows),
    });
  `,
  "/worker.mjs": `
    import * as lib from "/dist/browser/msgpack.min.js";
    import { runAll } from "/test/runtime/checks.mjs";
    fetch("/vectors.json").then((r) => r.json()).then((files) => runAll(lib, files, { seed: 13, count: 200 }))
      .then((summary) => postMessage({ ok: true, summary: { ...summary, worker: typeof WorkerGlobalScope === "function" } }),
            (e) => postMessage({ ok: false, error: String(e && e.stack || e) }));
  `,
};

const PAGES: Record<string, string> = {
  "/esm.html": `<script type="module" src="/run-esm.mjs"></script>`,
  "/iife.html": `<script src="/dist/browser/msgpack.iife.min.js"></script><script type="module" src="/run-iife.mjs"></script>`,
  "/worker.html": `<script type="module" src="/run-worker.mjs"></script>`,
  "/streams.html": `<script type="module" src="/run-streams.mjs"></script>`,
  "/probe.html": `<script type="module" src="/probe.mjs"></script>`,
  "/records.html": `<script type="module" src="/run-records.mjs"></script>`,
};

function page(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>msgpack</title></head><body>${body}</body></html>`;
}

function startServer(): Promise<Server> {
  const vectors = JSON.stringify(loadVectorFiles());
  const modules = new Map(MODULES.map((file) => [`/${file}`, readFileSync(join(ROOT, file), "utf8")]));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { "content-type": type, "content-security-policy": CSP, "cache-control": "no-store" });
      res.end(body);
    };
    if (PAGES[path]) return send(200, "text/html; charset=utf-8", page(PAGES[path]));
    if (SCRIPTS[path]) return send(200, "text/javascript", SCRIPTS[path]);
    if (path === "/favicon.ico") return send(204, "image/x-icon", "");
    const source = modules.get(path);
    if (source !== undefined) return send(200, "text/javascript", source);
    if (path === "/vectors.json") return send(200, "application/json", vectors);
    if (path.startsWith("/dist/") && path.endsWith(".js")) {
      // the browser bundles, and the ESM build (the records entry and its chunks)
      const file = normalize(join(ROOT, path));
      if (file.startsWith(join(ROOT, "dist/")) && existsSync(file)) return send(200, "text/javascript", readFileSync(file));
    }
    return send(404, "text/plain", "not found");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe.skipIf(!RUNS)("browser bundles in headless Chromium", () => {
  let server: Server;
  let browser: import("playwright-core").Browser;
  let origin: string;

  beforeAll(async () => {
    browser = await launchChromium();
    assertBuilt();
    server = await startServer();
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  async function open(path: string) {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    tab.on("console", (m) => {
      if (m.type() === "error") problems.push(`console error: ${m.text()}`);
    });
    tab.on("response", (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.url()}`);
    });
    try {
      await tab.goto(origin + path);
      await tab.waitForFunction(() => (window as any).smoke !== undefined, undefined, { timeout: 30_000 });
      const outcome: { ok: boolean; summary?: any; error?: string } = await tab.evaluate(() =>
        (window as any).smoke.then(
          (summary: unknown) => ({ ok: true, summary }),
          (e: any) => ({ ok: false, error: String(e?.stack ?? e) }),
        ),
      );
      return { ...outcome, problems };
    } finally {
      await context.close();
    }
  }

  test.each([
    ["ESM bundle dist/browser/msgpack.min.js", "/esm.html"],
    ["IIFE bundle dist/browser/msgpack.iife.min.js", "/iife.html"],
    ["ESM bundle in a module Worker", "/worker.html"],
    ["ESM bundle with streams dist/browser/msgpack-streams.min.js", "/streams.html"],
  ])("%s passes the vectors and round trips under a strict CSP", async (_name, path) => {
    const outcome = await open(path);
    expect(outcome.problems, outcome.problems.join("\n")).toEqual([]);
    expect(outcome.ok, outcome.error).toBe(true);
    const summary = outcome.summary as Record<string, any>;
    expect(summary.runtime).toMatch(/Chrome\//);
    expect(summary.resizable).toBe(true);
    expect(summary.buffers, "a browser has no Buffer: buffers: true must be INVALID_ARGUMENT").toBe(false);
    expect(summary.decoded).toBeGreaterThan(200);
    expect(summary.encoded).toBeGreaterThan(50);
    expect(summary.largest).toBeGreaterThan(1024 * 1024);
    if (path === "/worker.html") expect(summary.worker).toBe(true);
    if (path === "/streams.html") expect(summary.streamChecks).toBeGreaterThan(50);
    console.log(`chromium ${await browser.version()} ${path}: ${JSON.stringify({ ...summary, runtime: undefined })}`);
  });

  test("records under a CSP without 'unsafe-eval': the records entry decodes the same values, with no error, where new Function is refused", async () => {
    const outcome = await open("/records.html");
    expect(outcome.ok, outcome.error).toBe(true);
    expect(outcome.summary).toEqual({ records: true, plain: true });
    // the refused code generation is the records reader's one try: nothing else fails
    expect(outcome.problems.filter((p) => !/unsafe-eval|Content Security Policy/i.test(p))).toEqual([]);
  });

  test("the pages' CSP blocks eval and new Function, so the checks above would catch their use", async () => {
    const outcome = await open("/probe.html");
    expect(outcome.ok, outcome.error).toBe(true);
    expect(outcome.summary).toEqual({ evalBlocked: true });
  });
});
