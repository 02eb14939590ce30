// Builds the playground page (npm run build:playground): one self-contained
// HTML file, dist/playground.html, with src/inspect/playground.ts bundled,
// minified and inlined, its style inlined, and a Content-Security-Policy
// meta tag that allows exactly that script and that style by their sha256
// hashes and nothing else: no network, no eval, no other inline code. It
// opens from the file system (file://) as well as from a server.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const DIST = process.argv[2] ?? "dist";

const STYLE = `
:root { color-scheme: light; --hl: #ffe08a; --err: #ffb3b3; --fg: #1d1d1f; --dim: #8a8a8e; --form: #8a5a00; --value: #0b6e2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: #fafafa; }
body.dragging { outline: 4px dashed #4a90d9; outline-offset: -8px; }
header { padding: 10px 16px; background: #222; color: #fff; display: flex; gap: 16px; align-items: baseline; }
header h1 { font-size: 16px; margin: 0; }
header span { color: #bbb; font-size: 12px; }
main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; padding: 12px 16px; }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 10px; min-width: 0; }
section h2 { font-size: 13px; color: var(--dim); margin: 0 0 6px; }
textarea { width: 100%; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; border: 1px solid #ccc; border-radius: 4px; padding: 6px; }
#input { height: 84px; }
#json { height: 84px; }
.wide { grid-column: 1 / -1; }
#status { color: var(--dim); font-size: 12px; }
.switch { float: right; font-size: 12px; color: var(--dim); }
#error { color: #a00000; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; min-height: 1.4em; overflow-wrap: anywhere; }
#bytes, #tree { font: 13px/1.5 ui-monospace, Menlo, Consolas, monospace; white-space: pre; overflow: auto; max-height: 70vh; }
.off { color: var(--dim); margin-right: 10px; }
.b { padding: 0 3px; border-radius: 2px; cursor: default; }
.b.hl { background: var(--hl); }
.b.err { background: var(--err); outline: 1px solid #d00; }
.node > .line { border-radius: 2px; cursor: default; }
.node.hl > .line { background: var(--hl); }
.node.err > .line { background: var(--err); }
.label { color: var(--dim); }
.form { color: var(--form); margin-right: 8px; }
.value { color: var(--value); }
.msg { color: #a00000; padding-left: 2em; white-space: pre-wrap; overflow-wrap: anywhere; }
.note { color: var(--dim); }
#json-error { color: #a00000; font-size: 13px; overflow-wrap: anywhere; }
`;

const SAMPLE = "82 a4 6e 61 6d 65 a7 69 6e 73 70 65 63 74 a4 74 61 67 73 93 01 cb 3f f8 00 00 00 00 00 00 c4 02 ca fe";

const result = await build({
  entryPoints: ["src/inspect/playground.ts"],
  bundle: true,
  minify: true,
  format: "iife",
  platform: "neutral",
  target: "es2022",
  write: false,
  logLevel: "warning",
});
// inside a <script> element, "</script" would end it early
const script = result.outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1");
const sha = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
const csp = `default-src 'none'; script-src ${sha(script)}; style-src ${sha(STYLE)}; img-src data:; base-uri 'none'; form-action 'none'`;

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MessagePack playground - @resizable/msgpack</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>MessagePack playground</h1><span>@resizable/msgpack/inspect: paste hex or base64, or drop a file. Nothing leaves this page.</span></header>
<main>
<section class="wide">
<h2>MessagePack (hex or base64)</h2>
<textarea id="input" spellcheck="false" aria-label="MessagePack bytes as hex or base64">${SAMPLE}</textarea>
<div><input type="file" id="file" aria-label="Open a file"> <span id="status"></span><label class="switch"><input type="checkbox" id="records"> msgpackr records (useRecords)</label></div>
<div id="error" role="status"></div>
</section>
<section><h2>Bytes</h2><div id="bytes"></div></section>
<section><h2>Values</h2><div id="tree"></div></section>
<section class="wide">
<h2>JSON, following the bytes (edit it to change them): {"$uint64": "..."}, {"$bin": "base64"}, {"$timestamp": "..."}</h2>
<textarea id="json" spellcheck="false" aria-label="JSON"></textarea>
<div id="json-error" role="status"></div>
</section>
</main>
<script>${script}</script>
</body>
</html>
`;

mkdirSync(DIST, { recursive: true });
writeFileSync(join(DIST, "playground.html"), html);
console.log(`playground: ${join(DIST, "playground.html")} (${html.length} bytes, script ${script.length} bytes)`);
