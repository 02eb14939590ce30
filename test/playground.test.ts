// The playground page (dist/playground.html, built by test/tools/playground.mjs)
// in headless Chromium, opened from the file system as a user would open
// the shipped file: it makes no request but its own, runs under its own
// hash-pinned Content-Security-Policy without console errors, shows the
// tree of pasted hex, highlights a node's bytes on hover and a byte's node,
// shows errors at their offset, turns JSON into MessagePack, reads
// msgpackr's records behind its switch, and looks like
// test/playground.png (compared by pixels that differ, not pixel for
// pixel), of which docs/playground.png, the docs' picture, is a copy.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { encode } from "../src/records.ts";
import { fromJson, inspect, toJson } from "../src/inspect.ts";
import { chromiumAvailable, launchChromium } from "./_support/chromium.ts";
import { ROOT, assertBuilt } from "./tools/harness.ts";

const RUNS = chromiumAvailable("playground.test");
const PAGE = join(ROOT, "dist/playground.html");
const REFERENCE = join(ROOT, "test/playground.png");
/** The picture docs/inspect.md shows: the reference, copied (UPDATE_SCREENSHOT=1 writes both). */
const DOCS_PICTURE = join(ROOT, "docs/playground.png");
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");
const parseHex = (text: string) => Uint8Array.from(text.split(/\s+/), (x) => parseInt(x, 16));

describe.skipIf(!RUNS)("playground page (dist/playground.html) in headless Chromium", () => {
  let browser: import("playwright-core").Browser;
  let context: import("playwright-core").BrowserContext;
  let tab: import("playwright-core").Page;
  const problems: string[] = [];
  const requests: string[] = [];

  /** A fresh tab on the page, its errors and console warnings collected in `problems`. */
  const openPage = async (): Promise<import("playwright-core").Page> => {
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(PAGE).href);
    await page.waitForSelector("#tree .node");
    return page;
  };

  beforeAll(async () => {
    assertBuilt();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1000, height: 640 }, deviceScaleFactor: 1 });
    tab = await openPage();
  });

  afterAll(async () => {
    await browser?.close();
  });

  test("is one file with its script and style pinned by hash in a CSP that allows nothing else", () => {
    const html = readFileSync(PAGE, "utf8");
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+';/);
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    expect(html).not.toMatch(/<script[^>]+src=|<link|style="|\son[a-z]+="/);
    expect(new Set(requests)).toEqual(new Set([pathToFileURL(PAGE).href]));
    expect(problems).toEqual([]);
  });

  test("pasted hex shows as a tree beside the bytes; hovering a node highlights its bytes, hovering a byte its node", async () => {
    const bytes = encode({ name: "inspect", tags: [1, 2.5], raw: new Uint8Array([0xca, 0xfe]) });
    await tab.fill("#input", hex(bytes));
    await tab.waitForFunction((n) => document.querySelectorAll("#bytes .b").length === n, bytes.length);
    expect(await tab.textContent("#status")).toBe(`hex, ${bytes.length} bytes`);
    const rows = await tab.$$eval("#tree .node > .line", (lines) =>
      lines.map((l) => Array.from(l.querySelectorAll("span")).map((s) => s.textContent!.trim()).filter((t) => t !== "").join(" ")),
    );
    expect(rows).toEqual([
      "00000000 fixmap 3 entries",
      '00000001 key fixstr "name"',
      '00000006 value fixstr "inspect"',
      '0000000e key fixstr "tags"',
      "00000013 value fixarray 2 items",
      "00000014 positive fixint 1",
      "00000015 float 64 2.5",
      '0000001e key fixstr "raw"',
      "00000022 value bin 8 ca fe",
    ]);
    // the array's line: its 11 bytes light up
    await tab.hover("#tree .node[data-start='19'] > .line");
    const lit = await tab.$$eval("#bytes .b.hl", (spans) => spans.map((s) => Number((s as HTMLElement).dataset.i)));
    expect(lit).toEqual(Array.from({ length: 11 }, (_, i) => 19 + i));
    // a byte of the float: the float's node lights up, and its 9 bytes
    await tab.hover("#bytes .b[data-i='24']");
    expect(await tab.$$eval("#tree .node.hl", (nodes) => nodes.map((n) => (n as HTMLElement).dataset.start))).toEqual(["21"]);
    expect(await tab.$$eval("#bytes .b.hl", (spans) => spans.length)).toBe(9);
    expect(problems).toEqual([]);
  });

  test("errors are shown at their offset; base64 works too", async () => {
    await tab.fill("#input", "92 01 a3 61");
    await tab.waitForSelector("#error strong");
    expect(await tab.textContent("#error")).toBe("TRUNCATED at offset 2 (0x2): Cannot decode string at offset 2: insufficient data, input is 2 byte(s) short");
    expect(await tab.$$eval("#bytes .b.err", (spans) => spans.map((s) => (s as HTMLElement).dataset.i))).toEqual(["2"]);
    expect(await tab.$$eval("#tree .node.err", (nodes) => nodes.map((n) => (n as HTMLElement).dataset.start))).toEqual(["2"]);
    await tab.fill("#input", Buffer.from(encode([true])).toString("base64"));
    await tab.waitForFunction(() => document.querySelector("#status")!.textContent!.startsWith("base64"));
    expect(await tab.textContent("#error")).toBe("");
    expect(await tab.$$eval("#tree .node > .line", (l) => l.length)).toBe(2);
  });

  test("the JSON pane follows the bytes, and JSON typed into it becomes the bytes", async () => {
    // bytes in: their JSON, with no button to press
    const bytes = encode({ id: 2n ** 64n - 1n, raw: new Uint8Array([1, 2]) });
    await tab.fill("#input", hex(bytes));
    expect(await tab.inputValue("#json")).toBe(toJson(bytes));
    expect(await tab.inputValue("#json")).toBe('{"id":{"$uint64":"18446744073709551615"},"raw":{"$bin":"AQI="}}\n');
    // bytes that do not decode, or text that is not bytes: no JSON, and why
    await tab.fill("#input", "92 01 a3 61");
    expect(await tab.inputValue("#json")).toBe("");
    expect(await tab.textContent("#json-error")).toBe("No JSON: the bytes do not decode (TRUNCATED at offset 2)");
    await tab.fill("#input", "12 ?!");
    expect(await tab.inputValue("#json")).toBe("");
    expect(await tab.textContent("#json-error")).toBe("No JSON: the input is not hex or base64");
    // JSON in: the bytes follow, the JSON stays as typed
    const typed = '{"a": {"$uint16": 1}, "when": {"$timestamp": "2024-05-01T12:00:00.5Z"}}';
    await tab.fill("#json", typed);
    const expected = fromJson(typed);
    expect(expected[3]).toBe(0xcd);
    expect(await tab.inputValue("#input")).toBe(hex(expected));
    expect(await tab.textContent("#status")).toBe(`from JSON, ${expected.length} bytes`);
    expect(await tab.$$eval("#tree .node > .line", (l) => l.length)).toBe(5);
    expect(await tab.inputValue("#json")).toBe(typed);
    expect(await tab.textContent("#json-error")).toBe("");
    // JSON that does not convert says why, and the bytes stay
    await tab.fill("#json", '{"$nope": 1}');
    expect(await tab.textContent("#json-error")).toMatch(/unknown tag "\$nope"/);
    expect(await tab.inputValue("#input")).toBe(hex(expected));
    // the bytes edited again: the JSON follows them
    await tab.fill("#input", hex(expected));
    expect(await tab.inputValue("#json")).toBe('{"a":{"$uint16":1},"when":{"$timestamp":"2024-05-01T12:00:00.500Z"}}\n');
    expect(await tab.textContent("#json-error")).toBe("");
    // a file: the JSON follows it too, up to 1 MiB; past that it says why there is none
    const opened = encode([1, "two"]);
    await tab.setInputFiles("#file", { name: "small.msgpack", mimeType: "application/octet-stream", buffer: Buffer.from(opened) });
    await tab.waitForFunction(() => document.querySelector("#status")!.textContent!.startsWith("small.msgpack"));
    expect(await tab.inputValue("#json")).toBe('[1,"two"]\n');
    const big = encode(new Uint8Array(1 << 20));
    await tab.setInputFiles("#file", { name: "big.msgpack", mimeType: "application/octet-stream", buffer: Buffer.from(big) });
    await tab.waitForFunction(() => document.querySelector("#status")!.textContent!.startsWith("big.msgpack"));
    expect(await tab.inputValue("#json")).toBe("");
    expect(await tab.textContent("#json-error")).toBe(`No JSON: ${big.length} bytes is over the 1 MiB shown as JSON`);
    expect(problems).toEqual([]);
  });

  test("a paste replaces the sample the page opens with (it does not decode as a second value); focusing the sample selects it", async () => {
    const page = await openPage();
    const sample = await page.inputValue("#input");
    expect(inspect(parseHex(sample)).nodes.length).toBe(1);
    const selection = () => page.$eval("#input", (t) => [(t as HTMLTextAreaElement).selectionStart, (t as HTMLTextAreaElement).selectionEnd]);
    // a message on the clipboard (copied from a field of the page's own)
    const pasted = hex(encode({ pasted: true }));
    await page.evaluate((t) => {
      const field = document.createElement("textarea");
      field.id = "clipboard";
      field.value = t;
      document.body.append(field);
    }, pasted);
    await page.focus("#clipboard");
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Control+C");
    await page.evaluate(() => document.getElementById("clipboard")!.remove());
    // a paste with no text in it (an image) leaves the sample alone
    await page.$eval("#input", (t) => t.dispatchEvent(new ClipboardEvent("paste", { clipboardData: new DataTransfer(), bubbles: true, cancelable: true })));
    expect(await page.inputValue("#input")).toBe(sample);
    expect(await page.$$eval("#tree > .node", (nodes) => nodes.length)).toBe(1);
    // reached with the keyboard or the mouse, the sample is selected, so typing or pasting replaces it
    await page.focus("#input");
    expect(await selection()).toEqual([0, sample.length]);
    // a second click puts the caret inside the sample: a paste there still replaces it all
    await page.click("#input", { position: { x: 200, y: 12 } });
    const [caret, end] = await selection();
    expect(caret).toBe(end);
    expect(caret).toBeGreaterThan(0);
    expect(caret).toBeLessThan(sample.length);
    await page.keyboard.press("Control+V");
    expect(await page.inputValue("#input")).toBe(pasted);
    expect(await page.textContent("#error")).toBe("");
    expect(await page.$$eval("#tree > .node", (nodes) => nodes.length)).toBe(1);
    expect(await page.inputValue("#json")).toBe('{"pasted":true}\n');
    // once the text is the user's, a paste goes where the caret is, as in any other field
    await page.keyboard.press("End");
    await page.keyboard.type(" ");
    await page.keyboard.press("Control+V");
    expect(await page.inputValue("#input")).toBe(`${pasted} ${pasted}`);
    expect(await page.$$eval("#tree > .node", (nodes) => nodes.length)).toBe(2);
    expect(problems).toEqual([]);
    await page.close();
  });

  test("hostile input shows as text: HTML and </script> in keys and values, control, bidirectional and invisible characters escaped", async () => {
    const page = await openPage();
    const value = {
      "<img src=x onerror=alert(1)>": "</script><script>alert(2)</script>",
      "\u001b[31mred\u0007": "\u202eevil\u0000",
      "zero\u200bwidth\u2066": "\u0085\u009b2J\ufeff",
    };
    const bytes = encode(value);
    await page.fill("#input", hex(bytes));
    await page.waitForFunction((n) => document.querySelectorAll("#bytes .b").length === n, bytes.length);
    const values = await page.$$eval("#tree .node > .line .value", (spans) => spans.map((s) => s.textContent));
    expect(values).toEqual([
      "3 entries",
      '"<img src=x onerror=alert(1)>"',
      '"</script><script>alert(2)</script>"',
      '"\\u001b[31mred\\u0007"',
      '"\\u202eevil\\u0000"',
      '"zero\\u200bwidth\\u2066"',
      '"\\u0085\\u009b2J\\ufeff"',
    ]);
    // nothing was made of the input but text: the page's one script, no image, no element in a value
    expect(await page.$$eval("img", (l) => l.length)).toBe(0);
    expect(await page.$$eval("script", (l) => l.length)).toBe(1);
    expect(await page.$$eval("#tree .value *", (l) => l.length)).toBe(0);
    // the JSON pane: the same JSON, with those characters escaped
    const json = await page.inputValue("#json");
    expect(JSON.parse(json)).toEqual(value);
    expect(json.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u202e\u2066\ufeff]/);
    // a file name with a right-to-left override shows as stored
    await page.setInputFiles("#file", { name: "photo\u202egpj.exe", mimeType: "application/octet-stream", buffer: Buffer.from(bytes) });
    await page.waitForFunction(() => document.querySelector("#status")!.textContent!.startsWith("photo"));
    expect(await page.textContent("#status")).toBe(`photo\\u202egpj.exe, ${bytes.length} bytes`);
    expect(problems).toEqual([]);
    await page.close();
  });

  test("errors wrap inside their panel", async () => {
    await tab.fill("#input", "93 01 dd ff ff ff ff c1");
    await tab.waitForSelector("#tree .msg");
    const boxes = await tab.$$eval("#tree .msg, #error, #json-error", (els) =>
      els.map((e) => {
        const panel = e.closest("section")!.getBoundingClientRect();
        const box = e.getBoundingClientRect();
        return { text: e.textContent, overflow: e.scrollWidth - e.clientWidth, past: box.right - panel.right, lines: Math.round(box.height / parseFloat(getComputedStyle(e).lineHeight)) };
      }),
    );
    expect(boxes.map((b) => b.text!.split(":")[0])).toEqual(["TRUNCATED at offset 2 (0x2)", "TRUNCATED", "INVALID_BYTE", "No JSON"]);
    for (const box of boxes) {
      expect(box.overflow, box.text!).toBeLessThanOrEqual(0);
      expect(box.past, box.text!).toBeLessThanOrEqual(0);
    }
    // the first message is longer than its panel is wide: it takes more than one line
    expect(boxes[0]!.lines).toBeGreaterThan(1);
  });

  test("the records switch reads msgpackr's records: definition, record rows with field names, their bytes; off, the plain reading", async () => {
    const rows = [
      { id: 1, name: "a" },
      { id: 2, name: "b" },
    ];
    const bytes = encode(rows, { useRecords: true });
    // a page of its own, so the page the screenshot is taken of stays as the other tests left it
    const tab = await openPage();
    expect(hex(bytes)).toBe("92 d4 72 40 92 a2 69 64 a4 6e 61 6d 65 01 a1 61 40 02 a1 62");
    const lines = () =>
      tab.$$eval("#tree .node > .line", (ls) => ls.map((l) => Array.from(l.querySelectorAll("span")).map((s) => s.textContent!.trim()).filter((t) => t !== "").join(" ")));
    await tab.fill("#input", hex(bytes));
    await tab.waitForFunction((n) => document.querySelectorAll("#bytes .b").length === n, bytes.length);
    expect(await tab.isChecked("#records")).toBe(false);
    expect(await tab.textContent("label.switch")).toContain("msgpackr records (useRecords)");
    const plain = [
      "00000000 fixarray 2 items",
      "00000001 fixext 1 (type 114) 40",
      "00000004 fixarray 2 items",
      '00000005 fixstr "id"',
      '00000008 fixstr "name"',
      "0000000d positive fixint 1",
      '0000000e fixstr "a"',
      "00000010 positive fixint 64",
      "00000011 positive fixint 2",
      '00000012 fixstr "b"',
    ];
    expect(await lines()).toEqual(plain);
    // on: the same bytes read again, with records
    await tab.check("#records");
    await tab.waitForSelector("#tree .node[data-start='13']");
    expect(await lines()).toEqual([
      "00000000 fixarray 2 items",
      "00000001 record definition 0x40",
      "00000004 fixarray 2 items",
      '00000005 fixstr "id"',
      '00000008 fixstr "name"',
      "0000000d record 0x40 (2 fields)",
      'key field "id"',
      "0000000d value positive fixint 1",
      'key field "name"',
      '0000000e value fixstr "a"',
      "00000010 record 0x40 (2 fields)",
      'key field "id"',
      "00000011 value positive fixint 2",
      'key field "name"',
      '00000012 value fixstr "b"',
    ]);
    expect(await tab.textContent("#error")).toBe("");
    const lit = () => tab.$$eval("#bytes .b.hl", (spans) => spans.map((s) => Number((s as HTMLElement).dataset.i)));
    // the second record: its identifier and its two values
    await tab.hover("#tree .node[data-start='16'] > .line");
    expect(await lit()).toEqual([16, 17, 18, 19]);
    // the definition: its header and the array of names
    await tab.hover("#tree .node[data-start='1'] > .line");
    expect(await lit()).toEqual(Array.from({ length: 12 }, (_, i) => 1 + i));
    // the first record (declared where it starts): its fields, after the definition
    await tab.hover("#tree .node[data-start='13'] > .line");
    expect(await lit()).toEqual([13, 14, 15]);
    // a field name lights up its name in the definition; a byte of the record's identifier, the record
    await tab.locator("#tree .node > .line").filter({ hasText: /key\s*field\s*"name"/ }).first().hover();
    expect(await lit()).toEqual([8, 9, 10, 11, 12]);
    await tab.hover("#bytes .b[data-i='16']");
    expect(await tab.$$eval("#tree .node.hl", (nodes) => nodes.map((n) => (n as HTMLElement).querySelector(".form")!.textContent))).toEqual(["record 0x40 (2 fields)"]);
    // the JSON pane reads records too
    expect(await tab.inputValue("#json")).toBe('[{"id":1,"name":"a"},{"id":2,"name":"b"}]\n');
    // an identifier with no structure: decode's error at its offset
    await tab.fill("#input", "40 01");
    await tab.waitForSelector("#error strong");
    expect(await tab.textContent("#error strong")).toBe("INVALID_BYTE");
    expect(await tab.$$eval("#bytes .b.err", (spans) => spans.map((s) => (s as HTMLElement).dataset.i))).toEqual(["0"]);
    // off again: the fixext and fixint reading, and JSON of the plain values
    await tab.fill("#input", hex(bytes));
    await tab.uncheck("#records");
    await tab.waitForFunction(() => !document.querySelector("#tree .node[data-start='13'] .node"));
    expect(await lines()).toEqual(plain);
    expect(await tab.inputValue("#json")).toBe('[{"$ext":[114,"QA=="]},["id","name"]]\n1\n"a"\n64\n2\n"b"\n');
    expect(problems).toEqual([]);
    await tab.close();
  });

  test("looks like test/playground.png: a sample with a highlighted node (compared by differing pixels)", async (ctx) => {
    const sample = encode({ id: 7, name: "playground", tags: ["msgpack", "inspect"], at: new Date(Date.UTC(2024, 4, 1)), raw: new Uint8Array([1, 2, 3]) });
    await tab.fill("#input", hex(sample));
    const tags = inspect(sample).nodes[0]!.children![5]!;
    expect(tags.form).toBe("fixarray");
    await tab.hover(`#tree .node[data-start='${tags.offset}'] > .line`);
    await tab.mouse.move(0, 0, { steps: 1 }).catch(() => {});
    await tab.hover(`#tree .node[data-start='${tags.offset}'] > .line`);
    const shot = await tab.screenshot({ type: "png" });
    mkdirSync(join(ROOT, "test/.screenshots"), { recursive: true });
    writeFileSync(join(ROOT, "test/.screenshots/playground.png"), shot);
    if (process.env.UPDATE_SCREENSHOT) {
      writeFileSync(REFERENCE, shot);
      writeFileSync(DOCS_PICTURE, shot);
      ctx.skip("UPDATE_SCREENSHOT: test/playground.png and docs/playground.png rewritten, nothing to compare them with");
    }
    expect(existsSync(REFERENCE), "test/playground.png exists (UPDATE_SCREENSHOT=1 writes it)").toBe(true);
    // the docs show the page as it is: their picture is the reference
    expect(readFileSync(DOCS_PICTURE).equals(readFileSync(REFERENCE)), "docs/playground.png is test/playground.png (UPDATE_SCREENSHOT=1 writes both)").toBe(true);
    // decode both pictures in a blank page (the playground's CSP allows no fetch) and compare them
    const blank = await browser.newPage();
    const compare = await blank.evaluate(
      async ([now, then]) => {
        const pixels = async (b64: string) => {
          const img = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
          const canvas = new OffscreenCanvas(img.width, img.height);
          const ctx = canvas.getContext("2d")!;
          ctx.drawImage(img, 0, 0);
          return { w: img.width, h: img.height, data: ctx.getImageData(0, 0, img.width, img.height).data };
        };
        const a = await pixels(now!);
        const b = await pixels(then!);
        if (a.w !== b.w || a.h !== b.h) return { size: `${a.w}x${a.h} vs ${b.w}x${b.h}`, differing: 1, highlight: 0, header: 0 };
        let differing = 0;
        let highlight = 0;
        let header = 0;
        for (let i = 0; i < a.data.length; i += 4) {
          const [r, g, bl] = [a.data[i]!, a.data[i + 1]!, a.data[i + 2]!];
          if (Math.abs(r - b.data[i]!) + Math.abs(g - b.data[i + 1]!) + Math.abs(bl - b.data[i + 2]!) > 96) differing++;
          if (Math.abs(r - 0xff) < 8 && Math.abs(g - 0xe0) < 8 && Math.abs(bl - 0x8a) < 8) highlight++;
          if (i / 4 < a.w * 30 && r === 0x22 && g === 0x22 && bl === 0x22) header++;
        }
        return { size: `${a.w}x${a.h}`, differing: differing / (a.w * a.h), highlight, header: header / (a.w * 30) };
      },
      [shot.toString("base64"), readFileSync(REFERENCE).toString("base64")],
    );
    await blank.close();
    expect(compare.size).toBe("1000x640");
    // the highlight colour is there (the hovered node and its bytes), the dark title bar across the top
    expect(compare.highlight).toBeGreaterThan(2000);
    expect(compare.header).toBeGreaterThan(0.5);
    // and it looks like the reference: fonts may differ a little between machines, the layout not
    expect(compare.differing, "share of pixels that differ from test/playground.png (see test/.screenshots/playground.png)").toBeLessThan(0.08);
    expect(problems).toEqual([]);
  });
});
