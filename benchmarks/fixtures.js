// Seeded data generators for the benchmarks: dependency-free plain ESM, so
// they run as-is under node, bun and deno. Same seed, same data, on every
// runtime and every run; nothing is downloaded.
//
// Strings are built with Array.prototype.join and, for the structured
// fixtures, passed through JSON (`flatten`), so every string is flat, as
// JSON.parse would give it: no encoder meets a rope another one flattened
// first (a rope makes whichever encoder flattens it first run slower code).

// rng(seed): the seeded PRNG (mulberry32) the tests use too, from the
// import-free test/_support/fixtures.mjs; a function giving floats in [0, 1).
import { mulberry32 as rng } from "../test/_support/fixtures.mjs";

export { rng };

/** Integer in [lo, hi]. @param {() => number} r @param {number} lo @param {number} hi */
export function int(r, lo, hi) {
  return lo + Math.floor(r() * (hi - lo + 1));
}

/** @template T @param {() => number} r @param {readonly T[]} list @returns {T} */
export function pick(r, list) {
  return list[Math.floor(r() * list.length)];
}

/** Deep copy through JSON, so strings are flat and objects have JSON.parse's shapes. @template T @param {T} v @returns {T} */
export function flatten(v) {
  return JSON.parse(JSON.stringify(v));
}

const WORDS = (
  "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron sigma tau upsilon omega " +
  "apple river stone cloud forest market window garden silver orange purple yellow rapid quiet " +
  "north south east west engine server client buffer packet stream record vector matrix signal " +
  "order invoice payment account user admin guest status active pending closed archive"
).split(" ");
const FIRST = "Ada Alan Grace Linus Ken Dennis Barbara Edsger Donald Margaret John Frances Tim Radia Guido Brendan".split(" ");
const LAST = "Lovelace Turing Hopper Torvalds Thompson Ritchie Liskov Dijkstra Knuth Hamilton McCarthy Allen Berners-Lee Perlman Rossum Eich".split(" ");
const CITIES = "Berlin Paris Lisbon Osaka Nairobi Lima Oslo Quito Austin Hanoi Perth Dakar".split(" ");
const COUNTRIES = "DE FR PT JP KE PE NO EC US VN AU SN".split(" ");
const HEX = "0123456789abcdef";

/** @param {() => number} r @param {number} n */
function hex(r, n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = HEX[(r() * 16) | 0];
  return out.join("");
}

/** @param {() => number} r @param {number} n */
function words(r, n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = pick(r, WORDS);
  return out.join(" ");
}

/**
 * `n` doubles with fractional parts (each encodes as float 64, 9 bytes), as
 * a plain JS array (not a Float64Array, which encoders write as binary).
 * @param {number} n @param {number} [seed]
 */
export function doubles(n, seed = 1) {
  const r = rng(seed);
  // push, not new Array(n): V8 makes a huge new Array(n) a slow dictionary first (1e8: 80 s vs 7 s)
  const a = [];
  for (let i = 0; i < n; i++) a.push((r() - 0.5) * 2e6 + 0.25); // never integral
  return a;
}

/**
 * `n` small integers in -1000..1000: mostly 1-3 byte encodings.
 * @param {number} n @param {number} [seed]
 */
export function smallInts(n, seed = 2) {
  const r = rng(seed);
  const a = new Array(n);
  for (let i = 0; i < n; i++) a[i] = int(r, -1000, 1000);
  return a;
}

/**
 * One record of a typical API/database row: ~200-260 bytes of MessagePack.
 * @param {() => number} r @param {number} id
 */
function record(r, id) {
  const tags = new Array(int(r, 0, 4));
  for (let i = 0; i < tags.length; i++) tags[i] = pick(r, WORDS);
  const first = pick(r, FIRST), last = pick(r, LAST);
  const c = int(r, 0, CITIES.length - 1);
  const day = int(r, 1, 28), month = int(r, 1, 12), hour = int(r, 0, 23), min = int(r, 0, 59);
  return {
    id,
    uuid: hex(r, 32),
    name: [first, last].join(" "),
    email: [first.toLowerCase(), ".", last.toLowerCase(), "@example.com"].join(""),
    active: r() < 0.7,
    age: int(r, 18, 90),
    score: Math.round(r() * 1e6) / 1e4 + 0.5e-4,
    balance: (r() - 0.3) * 1e5,
    tags,
    address: { street: [int(r, 1, 999), pick(r, WORDS), "Street"].join(" "), city: CITIES[c], zip: String(int(r, 10000, 99999)), country: COUNTRIES[c] },
    created: `2026-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:${String(min).padStart(2, "0")}:00Z`,
    note: r() < 0.5 ? null : words(r, int(r, 2, 8)),
  };
}

/**
 * An array of `n` records (plain objects with strings, ints, doubles,
 * booleans, null, a small array and a nested object), flattened.
 * @param {number} n @param {number} [seed]
 */
export function records(n, seed = 3) {
  const r = rng(seed);
  const a = new Array(n);
  for (let i = 0; i < n; i++) a[i] = record(r, 1 + i);
  return flatten(a);
}

/**
 * Records whose encoding is about `bytes` long. `sizeOf(value)` measures an
 * encoding (any msgpack encoder); the count is extrapolated from a sample.
 * @param {number} bytes @param {(v: unknown) => number} sizeOf @param {number} [seed]
 */
export function recordsOfSize(bytes, sizeOf, seed = 3) {
  const sample = records(512, seed);
  const per = (sizeOf(sample) - 3) / sample.length;
  return records(Math.max(1, Math.round((bytes - 3) / per)), seed);
}

/**
 * `n` API-like records, the shape an HTTP API returns in a list:
 * `{ id, name, email, active, score, tags: [...], addr: { city, zip } }`.
 * @param {number} n @param {number} [seed]
 */
export function apiRecords(n, seed = 12) {
  const r = rng(seed);
  const cities = ["Paris", "Berlin", "Tokyo", "Lagos", "Lima", "Oslo", "Pune", "Austin"];
  const tags = ["admin", "beta", "staff", "trial", "vip", "eu", "us"];
  return Array.from({ length: n }, (_, i) => ({
    id: 100_000 + i,
    name: `user ${int(r, 1, 1e6)}`,
    email: `u${i}@example.com`,
    active: r() < 0.7,
    score: Math.round(r() * 10_000) / 100,
    tags: Array.from({ length: int(r, 0, 3) }, () => pick(r, tags)),
    addr: { city: pick(r, cities), zip: String(int(r, 10_000, 99_999)) },
  }));
}

/** `obj = [obj, obj]` `depth` times, from a leaf of 1: 2^depth leaves, one shared array per level. @param {number} [depth] */
export function nestedList(depth = 20) {
  /** @type {unknown} */
  let obj = 1;
  for (let i = 0; i < depth; i++) obj = [obj, obj];
  return obj;
}

/** A ~100 byte RPC message (JSON-RPC call with a few typed params). @param {number} [seed] */
export function rpcMessage(seed = 4) {
  const r = rng(seed);
  return flatten({
    jsonrpc: "2.0",
    id: int(r, 1, 1e6),
    method: "user.updateProfile",
    params: { userId: int(r, 1, 1e6), name: "Ada Lovelace", active: true, score: 0.875, tags: ["admin", "beta"] },
  });
}

/** A ~2 KB nested object (an API response: user, items with nested fields, paging meta). @param {number} [seed] */
export function nestedObject(seed = 5) {
  const r = rng(seed);
  const items = [];
  for (let i = 0; i < 8; i++) {
    items.push({
      sku: hex(r, 12),
      title: words(r, 4),
      price: Math.round(r() * 1e5) / 100 + 0.005,
      qty: int(r, 1, 20),
      attrs: { color: pick(r, WORDS), size: pick(r, ["S", "M", "L", "XL"]), weight: r() * 10 },
      flags: [r() < 0.5, r() < 0.5, null],
    });
  }
  return flatten({
    user: record(r, 42),
    cart: { id: hex(r, 16), currency: "EUR", items, total: items.reduce((s, x) => s + x.price * x.qty, 0) },
    meta: { page: 1, pageSize: 8, total: int(r, 8, 5000), next: "/api/v2/cart?page=2&size=8", generatedAt: "2026-11-22T15:00:00Z" },
  });
}

/**
 * `bytes` pseudo-random bytes in a fresh (plain) `Uint8Array`.
 * @param {number} bytes @param {number} [seed]
 */
export function blob(bytes, seed = 6) {
  const out = new Uint8Array(bytes);
  const words32 = new Uint32Array(out.buffer, 0, bytes >>> 2);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < words32.length; i++) {
    // xorshift32: fast enough for 200 MiB
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words32[i] = x >>> 0;
  }
  for (let i = words32.length * 4; i < bytes; i++) out[i] = i & 255;
  return out;
}

/** A flat ASCII string of exactly `length` characters (words and punctuation). @param {number} length @param {number} [seed] */
export function asciiString(length, seed = 7) {
  const r = rng(seed);
  const parts = [];
  let n = 0;
  while (n < length) {
    const w = pick(r, WORDS) + (r() < 0.1 ? ". " : " ");
    parts.push(w);
    n += w.length;
  }
  return flatten(parts.join("").slice(0, length));
}

/**
 * A flat string of CJK, kana, Hangul and emoji (3-4 UTF-8 bytes per code
 * point; emoji are surrogate pairs, never lone surrogates), about
 * `utf8Bytes` bytes of UTF-8.
 * @param {number} utf8Bytes @param {number} [seed]
 */
export function unicodeString(utf8Bytes, seed = 8) {
  const r = rng(seed);
  const ranges = [
    [0x4e00, 0x9fff, 3], // CJK unified ideographs
    [0x3041, 0x3096, 3], // hiragana
    [0xac00, 0xd7a3, 3], // Hangul syllables
    [0x1f300, 0x1f64f, 4], // emoji (surrogate pairs in UTF-16)
  ];
  const parts = [];
  let n = 0;
  while (n < utf8Bytes) {
    const [lo, hi, size] = ranges[Math.floor(r() * ranges.length)];
    if (n + size > utf8Bytes) break;
    parts.push(String.fromCodePoint(int(r, lo, hi)));
    n += size;
  }
  while (n < utf8Bytes) {
    parts.push("a");
    n++;
  }
  return flatten(parts.join(""));
}

/** Output size in half-decade steps from 10^lo to 10^hi: 1, 3, 10, 32, 100, 316, ... @param {number} lo @param {number} hi */
export function halfDecades(lo, hi) {
  const out = [];
  for (let e = lo * 2; e <= hi * 2; e++) out.push(Math.round(10 ** (e / 2)));
  return out;
}

const LEVELS = ["debug", "info", "info", "info", "warn", "error"];
const SERVICES = ["api", "auth", "billing", "search", "worker", "gateway"];
const METRICS = ["http.requests", "http.latency_ms", "db.query_ms", "queue.depth", "cpu.user", "mem.rss_bytes", "cache.hit_ratio"];
const ROUTES = ["/api/v2/users", "/api/v2/cart", "/api/v2/orders/:id", "/login", "/health", "/search"];
const MESSAGES = ["request done", "cache miss", "retrying upstream", "slow query", "token refreshed", "job finished", "connection reset", "Anfrage fertig", "要求完了", "échec de connexion"];

/**
 * One small event of a log/metrics pipeline, ~80-170 bytes of MessagePack:
 * a log line (sometimes with a nested context object), a metric point with
 * tags, an HTTP access record, or a trace span with nested attributes.
 * @param {() => number} r @param {number} seq @param {number} t0 ms epoch
 */
function event(r, seq, t0) {
  const ts = t0 + seq * 7 + int(r, 0, 6);
  const kind = r();
  if (kind < 0.4) {
    const e = { ts, level: pick(r, LEVELS), svc: pick(r, SERVICES), host: `node-${int(r, 1, 40)}`, pid: int(r, 100, 65_000), msg: pick(r, MESSAGES), seq, logger: pick(r, ["http", "db", "jobs"]) };
    if (r() < 0.5) e.ctx = { reqId: hex(r, 12), user: int(r, 1, 99_999), retry: r() < 0.2 };
    if (e.level === "error") e.err = { code: pick(r, ["ECONNRESET", "ETIMEDOUT", "E_RATE"]), attempts: int(r, 1, 5) };
    return e;
  }
  if (kind < 0.7) {
    const name = pick(r, METRICS);
    const value = name.endsWith("ms") || name.endsWith("ratio") || name.startsWith("cpu") ? Math.round(r() * 1e5) / 100 + 0.001 : int(r, 0, 2 ** 31);
    const tags = { host: `node-${int(r, 1, 40)}`, region: pick(r, ["eu-west-1", "us-east-2", "ap-south-1"]), env: pick(r, ["prod", "staging"]) };
    return { ts, metric: name, value, interval: 10, unit: pick(r, ["count", "ms", "bytes", "ratio"]), tags };
  }
  if (kind < 0.9) {
    return {
      ts,
      method: pick(r, ["GET", "GET", "POST", "PUT", "DELETE"]),
      path: pick(r, ROUTES),
      status: pick(r, [200, 200, 200, 201, 204, 304, 404, 500]),
      ms: int(r, 1, 900),
      bytes: int(r, 0, 70_000),
      ip: `10.${int(r, 0, 255)}.${int(r, 0, 255)}.${int(r, 1, 254)}`,
      reqId: hex(r, 12),
    };
  }
  return {
    ts,
    trace: hex(r, 16),
    span: hex(r, 8),
    parent: r() < 0.3 ? null : hex(r, 8),
    name: pick(r, ["db.query", "http.call", "render", "queue.publish"]),
    dur: Math.round(r() * 1e6) / 1e3 + 0.0005,
    attrs: { ok: r() < 0.9, rows: int(r, 0, 500), peer: pick(r, SERVICES) },
  };
}

/**
 * A stream of `n` small, varied events (log lines, metric points, access
 * records, trace spans; some with nested objects), 80-170 bytes each as
 * MessagePack, ~115 B on average: each is meant to be encoded and decoded
 * as a message of its own. Flattened.
 * @param {number} n @param {number} [seed]
 */
export function events(n, seed = 9) {
  const r = rng(seed);
  const t0 = Date.UTC(2026, 10, 22, 15, 0, 0);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = event(r, i, t0);
  return flatten(out);
}

/** Short non-ASCII words for keys and values: accents, Cyrillic, Greek, CJK, kana, Hangul, an emoji. */
const WORLD = ["größe", "café", "naïve", "Привет", "данные", "λόγος", "東京", "データ", "서울", "ключ", "ñandú", "🙂ok"];

/**
 * One value of the wide map, by `i` so every kind occurs: empty containers,
 * integers of every width (past 2^32 too, both signs), floats from 5e-324 to
 * 1.8e308 (subnormal, tiny, huge, integral past 2^53), small binaries, ASCII and non-ASCII text, booleans, null, small
 * nested objects and arrays.
 * @param {() => number} r @param {number} i
 */
function wideValue(r, i) {
  switch (i % 16) {
    case 0: return [[], {}, "", new Uint8Array(0)][(i >> 4) & 3];
    case 1: return int(r, 0, 127);
    case 2: return -int(r, 1, 32);
    case 3: return int(r, -32_768, 65_535);
    case 4: return int(r, 2 ** 16, 2 ** 32 - 1);
    case 5: return (r() < 0.5 ? -1 : 1) * int(r, 2 ** 32, Number.MAX_SAFE_INTEGER);
    case 6: return (r() - 0.5) * 2 ** int(r, -1000, 1000); // exact in every engine, unlike 10 ** n
    case 7: return pick(r, [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e-7, 0.1, 1.5, 3.14159, -2.5e-12, 6.02214076e23]);
    case 8: return blob(int(r, 1, 48), i);
    case 9: return words(r, int(r, 1, 5));
    case 10: return `${pick(r, WORLD)} ${pick(r, WORLD)}`;
    case 11: return r() < 0.5;
    case 12: return null;
    case 13: return { id: int(r, 1, 1e6), label: pick(r, WORDS), w: pick(r, WORLD), ok: r() < 0.5 };
    case 14: return [int(r, 0, 9), pick(r, WORDS), r() * 100, null, { n: int(r, 0, 3) }];
    default: return [int(r, 0, 1e9), r() < 0.5 ? 0.5 : -0.25, pick(r, WORLD)];
  }
}

/**
 * One plain object of `n` keys whose values mix every kind (see wideValue).
 * Keys: ASCII names, numeric-looking ("123", "-7", "4.5"), and non-ASCII.
 * Binaries are plain `Uint8Array`s (not flattened through JSON; every other
 * string is flat).
 * @param {number} n @param {number} [seed]
 */
export function wideMap(n, seed = 10) {
  const r = rng(seed);
  /** @type {Record<string, unknown>} */
  const out = {};
  for (let i = 0; Object.keys(out).length < n; i++) {
    const k = i % 5;
    const key =
      k === 0 ? String(int(r, 0, 99_999)) :
      k === 1 ? pick(r, ["-", ""]) + `${int(r, 0, 999)}.${int(r, 0, 99)}` :
      k === 2 ? `${pick(r, WORLD)}_${i}` :
      `${pick(r, WORDS)}_${pick(r, WORDS)}_${i}`;
    out[key] = wideValue(r, i);
  }
  // flat strings without losing binaries: JSON for the rest, binaries put back in place
  const flat = flatten(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v instanceof Uint8Array ? null : v])));
  for (const [k, v] of Object.entries(out)) if (v instanceof Uint8Array) flat[k] = v;
  return flat;
}

/**
 * String-rich records whose strings are built as programs build them
 * (template literals, `+`, `repeat`) from shared pieces, so in V8 and JSC
 * they are ropes, not flat strings as `JSON.parse` would give: a title, a
 * URL, a body of 1-12 sentences from a shared pool (~70-1,900 characters),
 * a divider and two tags per record. Seeded.
 * @param {number} n @param {number} [seed]
 */
export function ropeRecords(n, seed = 7) {
  const r = rng(seed);
  const word = () => ROPE_WORDS[(r() * ROPE_WORDS.length) | 0];
  // the shared pieces: flat sentences of 8-24 words
  const pool = [];
  for (let i = 0; i < 64; i++) {
    const words = [];
    for (let w = 8 + ((r() * 17) | 0); w > 0; w--) words.push(word());
    pool.push(words.join(" ") + ".");
  }
  const sentence = () => pool[(r() * pool.length) | 0];
  const a = new Array(n);
  for (let i = 0; i < n; i++) {
    let body = sentence();
    for (let k = (r() * 12) | 0; k > 0; k--) body = `${body} ${sentence()}`;
    a[i] = {
      id: i + 1,
      title: `${word()} ${word()} ${word()} #${i + 1}`,
      url: "https://example.com/posts/" + (i + 1) + "/" + word() + "-" + word(),
      body,
      divider: "=-".repeat(8 + ((r() * 40) | 0)),
      tags: [word() + "-" + word(), `${word()}:${(r() * 1000) | 0}`],
      score: r() * 100,
    };
  }
  return a;
}
const ROPE_WORDS = "alpha beta gamma delta epsilon river stone cloud forest market window garden silver orange engine server client buffer packet stream record vector matrix signal order invoice payment account".split(" ");

/** Rope records whose encoding is about `bytes` long (sized from a sample, then built afresh). @param {number} bytes @param {(v: unknown) => number} sizeOf */
export function ropeRecordsOfSize(bytes, sizeOf) {
  const sample = ropeRecords(512);
  const per = (sizeOf(sample) - 5) / sample.length;
  return ropeRecords(Math.max(1, Math.round((bytes - 5) / per)));
}

const TS_METRICS = ["cpu.user", "cpu.system", "mem.rss_bytes", "disk.io_ms", "net.rx_bytes", "http.requests", "http.latency_ms", "queue.depth"];

/**
 * A batch of time series as a metrics agent ships it: `series` series of
 * `points` `[timestamp, value]` pairs each. Timestamps are milliseconds
 * since the epoch (about 1.8e12, above 2^32, so they take a 64-bit integer),
 * 10 s apart with a little jitter; values are integers for counters and
 * byte counts (some past 2^32) and fractional floats for the rest. Each
 * series has a metric name and a tag map of 3-5 short strings. Flattened.
 * @param {number} series @param {number} points @param {number} [seed]
 */
export function timeSeries(series, points, seed = 11) {
  const r = rng(seed);
  const t0 = Date.UTC(2026, 10, 22, 15, 0, 0);
  const out = new Array(series);
  for (let s = 0; s < series; s++) {
    const metric = pick(r, TS_METRICS);
    const integral = metric.endsWith("bytes") || metric.endsWith("requests") || metric.endsWith("depth");
    /** @type {Record<string, string>} */
    const tags = { host: `node-${int(r, 1, 40)}`, region: pick(r, ["eu-west-1", "us-east-2", "ap-south-1"]), env: pick(r, ["prod", "staging"]) };
    if (r() < 0.5) tags.svc = pick(r, SERVICES);
    if (r() < 0.3) tags.az = pick(r, ["a", "b", "c"]);
    let level = integral ? int(r, 0, metric.endsWith("bytes") ? 2 ** 36 : 5000) : r() * 100;
    const pts = new Array(points);
    for (let i = 0; i < points; i++) {
      const ts = t0 + i * 10_000 + int(r, 0, 99);
      level = integral ? Math.max(0, level + int(r, -50, 200)) : Math.abs(level + (r() - 0.5) * 5) + 0.001;
      pts[i] = [ts, integral ? level : Math.round(level * 1000) / 1000 + 0.0005];
    }
    out[s] = { metric, tags, interval: 10, points: pts };
  }
  return flatten(out);
}

/** Chat text pieces: accented Latin, Cyrillic, Greek, CJK, kana, Hangul, emoji (with ZWJ sequences, skin tones and flags). */
const CHAT_WORDS = (
  "ça va déjà très bientôt naïve Grüße schön Straße mañana pequeño acción coração não Привет спасибо Καλημέρα " +
  "こんにちは ありがとう 了解です 今日は 你好 谢谢 没问题 明天见 안녕하세요 감사합니다 좋아요 " +
  "🙂 😂 🎉 👍 🔥 ❤️ 🙏 👩‍💻 👍🏽 🇯🇵 🇧🇷 ✨ 🚀 ok lol merci danke gracias"
).split(" ");
const CHAT_NAMES = ["Zoë", "José", "François", "Ångström", "Ñuño", "Łukasz", "小林", "김민준", "Анна", "Δήμητρα", "Ayşe", "Nguyễn"];
const CHAT_ROOMS = ["général", "開発", "random", "équipe-ops", "팀", "🎉-party"];

/**
 * A stream of `n` chat messages, each a small object (about 65-245 bytes of
 * MessagePack) whose strings are heavy in accented, CJK and emoji text: a
 * message id, a room, the author's id and display name, a millisecond
 * timestamp, the text (2-14 words from the pool above), and sometimes
 * reactions keyed by emoji or a reply-to id. Each is meant to be encoded
 * and decoded as a message of its own. No lone surrogates. Flattened.
 * @param {number} n @param {number} [seed]
 */
export function chatMessages(n, seed = 12) {
  const r = rng(seed);
  const t0 = Date.UTC(2026, 10, 22, 15, 0, 0);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const words = new Array(int(r, 2, 14));
    for (let w = 0; w < words.length; w++) words[w] = pick(r, CHAT_WORDS);
    const who = int(r, 0, CHAT_NAMES.length - 1);
    /** @type {Record<string, unknown>} */
    const m = { id: 1_000_000 + i, room: pick(r, CHAT_ROOMS), from: { id: 100 + who, name: CHAT_NAMES[who] }, ts: t0 + i * 1500 + int(r, 0, 999), text: words.join(" ") };
    if (r() < 0.25) {
      /** @type {Record<string, number>} */
      const reactions = {};
      for (let k = int(r, 1, 3); k > 0; k--) reactions[pick(r, ["👍", "❤️", "😂", "🎉", "🙏"])] = int(r, 1, 12);
      m.reactions = reactions;
    }
    if (r() < 0.2) m.replyTo = 1_000_000 + int(r, 0, Math.max(0, i - 1));
    out[i] = m;
  }
  return flatten(out);
}
