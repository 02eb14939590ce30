/**
 * The encoder against values that fight back: nesting through extensions,
 * huge maxDepth, cycles, getters and collections that change while being
 * encoded, lying Proxies, odd extension payloads, invalid options. Every
 * case ends in valid MessagePack or an EncodeError with a code and a clear
 * message, never bad bytes or an engine error.
 */
import { describe, expect, test } from "vitest";
import { decode, encode, EncodeError, Encoder, type EncodeOptions, ExtData, ExtensionCodec } from "../src/index.ts";
// codecs of another kind (objects with tryToEncode) are installed by the entry for @msgpack/msgpack programs
import "../src/compat/msgpack.ts";
import { hex, Random } from "./_support/arbitrary.ts";
import { atStackSizes, DIST } from "./_support/stack-child.ts";

/** The EncodeError `run` throws (fails the test if it throws anything else or nothing). */
function encodeError(run: () => unknown): EncodeError {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error, "an EncodeError").toBeInstanceOf(EncodeError);
  return error as EncodeError;
}

function expectError(run: () => unknown, code: string, message: RegExp): void {
  const e = encodeError(run);
  expect(e.code).toBe(code);
  expect(e.message).toMatch(message);
}

/** A codec that writes a Set as extension 1 whose payload is the Set's items, encoded by `inner`. */
function setCodec(inner: (items: unknown[], extensionCodec: ExtensionCodec) => Uint8Array): ExtensionCodec {
  const extensionCodec = new ExtensionCodec();
  extensionCodec.register({
    type: 1,
    encode: (v) => (v instanceof Set ? inner([...v], extensionCodec) : null),
    decode: (data) => new Set(decode(data, { extensionCodec }) as unknown[]),
  });
  return extensionCodec;
}

function nestedSets(levels: number): Set<unknown> {
  let v = new Set<unknown>([0]);
  for (let i = 0; i < levels; i++) v = new Set([v]);
  return v;
}

describe("maxDepth bounds nesting through extensions that re-enter encode()", () => {
  test.each([
    ["encode() with the same options object", (items: unknown[], extensionCodec: ExtensionCodec) => encode(items, { extensionCodec })],
    ["encode() with a new options object each time", (items: unknown[], extensionCodec: ExtensionCodec) => encode(items, { extensionCodec, sortKeys: false })],
    ["a new Encoder each time", (items: unknown[], extensionCodec: ExtensionCodec) => new Encoder({ extensionCodec }).encode(items)],
  ])("1,000 nested Sets through %s: MAX_DEPTH, not a stack overflow", (_, inner) => {
    const extensionCodec = setCodec(inner);
    expectError(() => encode(nestedSets(1000), { extensionCodec }), "MAX_DEPTH", /too deep objects in depth \d+ \(maxDepth 512\)/);
  });

  test("each extension level counts: its payload continues one level deeper", () => {
    const extensionCodec = setCodec((items, c) => encode(items, { extensionCodec: c }));
    // a Set at depth d, its payload array at d + 1, the inner Set at d + 2
    expect(decode(encode(nestedSets(2), { extensionCodec, maxDepth: 6 }), { extensionCodec })).toEqual(nestedSets(2));
    // the inner encode() runs with its own options (default maxDepth 512): the outer maxDepth 5 does not apply to it,
    // but the depth it starts at does: with maxDepth 4 inside, the payload of the third Set is too deep
    const shallow = setCodec((items, c) => encode(items, { extensionCodec: c, maxDepth: 4 }));
    expectError(() => encode(nestedSets(2), { extensionCodec: shallow }), "MAX_DEPTH", /maxDepth 4/);
    expect(() => encode(nestedSets(1), { extensionCodec: shallow })).not.toThrow();
  });

  test("the depth of an extension's encode() is restored after it returns and after it throws", () => {
    const extensionCodec = setCodec((items, c) => encode(items, { extensionCodec: c }));
    const wide = [nestedSets(3), nestedSets(3), new Set([() => 1])];
    encodeError(() => encode(wide, { extensionCodec }));
    // a top-level encode after the error starts at depth 0 again
    const deep = Array.from({ length: 500 }).reduce<unknown>((v) => [v], 1);
    expect(decode(encode(deep))).toEqual(deep);
  });

  test("maxDepth: 1e6 ends in an EncodeError (MAX_DEPTH) when the call stack runs out, and the encoder stays usable", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 300_000; i++) deep = [deep];
    const encoder = new Encoder({ maxDepth: 1e6 });
    expectError(() => encoder.encode(deep), "MAX_DEPTH", /too deep objects for the call stack \(maxDepth 1000000/);
    expect(hex(encoder.encode([1]))).toBe("91-01");
    expectError(() => encode(deep, { maxDepth: Infinity }), "MAX_DEPTH", /call stack/);
  });

  test("a cycle that outruns the call stack is still reported as a cycle", () => {
    const a: unknown[] = [];
    a.push({ next: a });
    expectError(() => encode(a, { maxDepth: Infinity }), "CYCLE", /at \$\[0\]\.next \(the object at \$\)/);
  });
});

describe("cycles are reported as cycles (CYCLE), with the path", () => {
  const self: Record<string, unknown> = { name: "x" };
  self.me = self;
  const list: unknown[] = [1, 2];
  const holder = { items: [{ id: 1 }, { id: 2, back: list }] };
  list.push(holder);
  const map = new Map<unknown, unknown>([["k", null]]);
  map.set("k", { m: map });
  const set = new Set<unknown>();
  set.add([set]);
  const deepCycle: Record<string, unknown> = { a: { b: { c: {} } } };
  ((deepCycle.a as { b: { c: Record<string, unknown> } }).b.c).d = deepCycle.a;
  test.each([
    ["an object that holds itself", self, "$.me", "$"],
    ["an array reached again through an object and an array", list, "$[2].items[1].back", "$"],
    ["a Map reached again through an entry value", map, '$.get("k").m', "$"],
    ["a Set reached again through an array", set, "$[0][0]", "$"],
    ["a cycle that starts below the root", { root: deepCycle }, "$.root.a.b.c.d", "$.root.a"],
  ])("%s", (_, value, path, first) => {
    const e = encodeError(() => encode(value));
    expect(e.code).toBe("CYCLE");
    expect(e.message).toBe(`Cannot encode value at ${path} (the object at ${first}): it contains itself (a cycle), too deep to encode`);
  });

  test("deep nesting without a cycle stays MAX_DEPTH, with a shortened path", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 600; i++) deep = { child: [deep] };
    const e = encodeError(() => encode(deep));
    expect(e.code).toBe("MAX_DEPTH");
    expect(e.message).toMatch(/^Cannot encode value at \$\.child\[0\]\.child\[0\]\.\.\.\(502 more\)\.\.\.\.child\[0\]\.child\[0\]\.child\[0\]: too deep objects in depth 513 \(maxDepth 512\)$/);
  });

  test("the same object twice, not inside itself, is no cycle", () => {
    const shared = { x: 1 };
    expect(decode(encode([shared, shared, { s: shared }]))).toEqual([{ x: 1 }, { x: 1 }, { s: { x: 1 } }]);
  });
});

describe("unencodable values say where they are", () => {
  class Widget {
    handler = (): void => {};
  }
  test.each([
    ["a method in a nested object", { user: { name: "a", onClick() {} } }, "function", "$.user.onClick"],
    ["a symbol in an array of records", [{ x: 1 }, { x: 2 }, { x: 3 }, { x: Symbol("s") }], "symbol", "$[3].x"],
    ["a key that is no identifier", { "a b": [0, () => 0] }, "function", '$["a b"][1]'],
    ["a Map value under a string key", new Map([["k", () => 0]]), "function", '$.get("k")'],
    ["a Map key", new Map([[Symbol("k"), 1]]), "symbol", "$.keys()[0]"],
    ["a Map value under an object key", new Map([[{}, () => 0]]), "function", "$.values()[0]"],
    ["a Set item", new Set([1, () => 0]), "function", "$[1]"],
    ["a class instance's field", { w: new Widget() }, "function", "$.w.handler"],
    ["after an equal function elsewhere", { a: { f: 1 }, b: { f: Math.max } }, "function", "$.b.f"],
  ])("%s", (_, value, kind, path) => {
    expectError(() => encode(value), "UNSUPPORTED_TYPE", new RegExp(`^Cannot encode ${kind} at ${path.replace(/[$.[\]()"]/g, "\\$&")}: unrecognized object$`));
  });

  test("with sortKeys the path follows the sorted order", () => {
    const f = (): void => {};
    expectError(() => encode({ b: f, a: f }, { sortKeys: true }), "UNSUPPORTED_TYPE", /at \$\.a:/);
    expectError(() => encode({ b: f, a: f }), "UNSUPPORTED_TYPE", /at \$\.b:/);
  });

  test("the path inside an extension's encode() starts at that encode's value", () => {
    const extensionCodec = setCodec((items, c) => encode(items, { extensionCodec: c }));
    expectError(() => encode({ s: new Set([1, { f: () => 0 }]) }, { extensionCodec }), "UNSUPPORTED_TYPE", /at \$\[1\]\.f:/);
  });
});

describe("values that change while they are encoded", () => {
  test("ignoreUndefined reads each property once: a getter that answers differently the second time gives valid bytes", () => {
    let reads = 0;
    const value = {
      get a() {
        return reads++ === 0 ? 1 : undefined;
      },
      b: 2,
    };
    for (const options of [{ ignoreUndefined: true }, { ignoreUndefined: true, sortKeys: true }, { sortKeys: true }, {}]) {
      reads = 0;
      const bytes = encode(value, options);
      expect(decode(bytes), JSON.stringify(options)).toEqual({ a: 1, b: 2 });
      expect(reads).toBe(1);
    }
    // the first read is undefined: left out
    let calls = 0;
    const flip = {
      get a() {
        return calls++ === 0 ? undefined : 1;
      },
      b: 2,
    };
    expect(decode(encode(flip, { ignoreUndefined: true }))).toEqual({ b: 2 });
  });

  test("a Map that grows while its entries are encoded is CHANGED, not a wrong count", () => {
    const map = new Map<unknown, unknown>();
    map.set("a", {
      get x() {
        map.set("late", 1);
        return 1;
      },
    });
    expectError(() => encode(map), "CHANGED", /^Cannot encode Map at \$: it changed while being encoded \(1 entries, then more\)$/);
    expect(map.size).toBe(2);
  });

  test("a Map that shrinks while its entries are encoded is CHANGED", () => {
    const map = new Map<unknown, unknown>();
    map.set("a", {
      get x() {
        map.delete("b");
        return 1;
      },
    });
    map.set("b", 2);
    expectError(() => encode({ m: map }), "CHANGED", /^Cannot encode Map at \$\.m: it changed while being encoded \(2 entries, then 1\)$/);
  });

  test("a Set or an array that changes while its items are encoded is CHANGED", () => {
    const set = new Set<unknown>();
    set.add({
      get x() {
        set.add(2);
        return 1;
      },
    });
    expectError(() => encode([set]), "CHANGED", /^Cannot encode Set at \$\[0\]: it changed while being encoded \(1 entries, then 2\)$/);
    const arr: unknown[] = [];
    arr.push({
      get x() {
        arr.push(9);
        return 1;
      },
    });
    expectError(() => encode({ arr }), "CHANGED", /^Cannot encode array at \$\.arr: it changed/);
  });

  test("an extension that adds to a Map being encoded is CHANGED", () => {
    const map = new Map<unknown, unknown>();
    class Marker {}
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({
      type: 3,
      encode: (v) => {
        if (!(v instanceof Marker)) return null;
        map.set(map.size, 0);
        return new Uint8Array(1);
      },
      decode: () => null,
    });
    map.set("m", new Marker());
    expectError(() => encode(map, { extensionCodec }), "CHANGED", /Map at \$/);
  });

  test("an object whose keys change under a getter keeps the keys it had (values read once)", () => {
    const obj: Record<string, unknown> = {};
    let reads = 0;
    Object.defineProperty(obj, "a", {
      enumerable: true,
      get() {
        reads++;
        delete obj.c;
        obj.z = 26;
        return 1;
      },
    });
    obj.b = 2;
    obj.c = 3;
    expect(decode(encode(obj))).toEqual({ a: 1, b: 2, c: null });
    expect(reads).toBe(1);
  });

  test("Proxies whose traps answer inconsistently give valid MessagePack or an EncodeError", () => {
    const r = new Random(7);
    const answer = (): unknown => r.pick([0, 1, 2, 3, 17, -1, 2.5, "x", undefined, NaN, 2 ** 32, null]);
    let valid = 0;
    let errors = 0;
    for (let i = 0; i < 1500; i++) {
      const kind = r.int(0, 3);
      const target: object = kind === 0 ? [1, 2, 3] : kind === 1 ? { a: 1, b: 2, c: 3 } : kind === 2 ? new Map([[1, 2]]) : new Set([1, 2]);
      const keys = (): string[] => r.pick([["a"], ["a", "b"], [], ["length"], ["0", "1", "2", "length"], ["c", "a"]]);
      const proxy = new Proxy(target, {
        get: (t, k, recv) => (r.bool(0.3) ? answer() : Reflect.get(t, k, recv)),
        ownKeys: (t) => (kind === 0 ? Reflect.ownKeys(t) : keys()),
        getOwnPropertyDescriptor: (t, k) => (kind === 0 ? Reflect.getOwnPropertyDescriptor(t, k) : { value: answer(), enumerable: r.bool(0.7), configurable: true, writable: true }),
        getPrototypeOf: (t) => (r.bool(0.2) ? r.pick([null, Object.prototype, Map.prototype, Set.prototype, Array.prototype]) : Reflect.getPrototypeOf(t)),
      });
      let bytes: Uint8Array | undefined;
      try {
        bytes = encode({ p: proxy, after: "end" }, r.bool() ? { sortKeys: true, ignoreUndefined: true } : undefined);
      } catch (e) {
        if (!(e instanceof EncodeError)) throw e;
        errors++;
        continue;
      }
      const decoded = decode(bytes) as { after: string }; // throws on invalid or extra bytes
      expect(decoded.after).toBe("end");
      valid++;
    }
    expect(valid).toBeGreaterThan(50);
    expect(errors).toBeGreaterThan(10);
  });

  test.each([
    ["Map", new Map([[1, 2]])],
    ["Set", new Set([1])],
  ])("a Proxy around a %s (its size and entries throw) is an EncodeError that keeps the engine's error as its cause", (what, target) => {
    const e = encodeError(() => encode({ m: new Proxy(target, {}) }));
    expect(e.code).toBe("UNSUPPORTED_TYPE");
    expect(e.message).toMatch(new RegExp(`^Cannot encode ${what} at \\$\\.m: its entries cannot be read \\(TypeError: .*\\)$`));
    expect((e as { cause?: unknown }).cause).toBeInstanceOf(TypeError);
  });

  test("a Map whose iterator has no next() is an EncodeError whose cause is the TypeError for-of would give", () => {
    const map = new Map([[1, 2]]);
    Object.defineProperty(map, Symbol.iterator, { value: () => ({ return: () => ({ done: true }) }) });
    const e = encodeError(() => encode({ m: map }));
    expect(e.code).toBe("UNSUPPORTED_TYPE");
    expect(e.message).toBe("Cannot encode Map at $.m: its entries cannot be read (TypeError: its iterator has no next())");
    expect((e as { cause?: unknown }).cause).toBeInstanceOf(TypeError);
  });

  test("an array Proxy whose length is no count is an EncodeError (CHANGED), a Map subclass whose size lies too", () => {
    const proxy = new Proxy([1, 2, 3], { get: (t, k) => (k === "length" ? 2.5 : Reflect.get(t, k)) });
    expectError(() => encode(proxy), "CHANGED", /^Cannot encode array: it reports 2\.5 items, not a count$/);
    class LyingMap extends Map<unknown, unknown> {
      override get size(): number {
        return 5;
      }
    }
    expectError(() => encode(new LyingMap([[1, 2]])), "CHANGED", /Map at \$: it changed while being encoded \(5 entries, then 1\)/);
  });

  test("a Map or Set subclass whose size is no count, or disagrees with its entries, is an EncodeError before any entry is written", () => {
    for (const [size, code, message] of [
      [2.5, "CHANGED", /^Cannot encode map: it reports 2\.5 items, not a count$/],
      [-1, "CHANGED", /^Cannot encode map: it reports -1 items, not a count$/],
      [2 ** 40, "TOO_LONG", /^Cannot encode map of length 1099511627776: over 2\^32-1$/],
      [1e9, "CHANGED", /^Cannot encode Map at \$\.m: it changed while being encoded \(1000000000 entries, then 1\)$/],
    ] as const) {
      let reads = 0;
      class Sized extends Map<unknown, unknown> {
        override get size(): number {
          return size;
        }
      }
      expectError(() => encode({ m: new Sized([[1, { get x() { return reads++; } }]]) }), code, message); // prettier-ignore
      expect(reads, String(size)).toBe(0);
    }
    class FewerSet extends Set<unknown> {
      override get size(): number {
        return 3;
      }
    }
    expectError(() => encode([new FewerSet([1, 2])]), "CHANGED", /^Cannot encode Set at \$\[0\]: it changed while being encoded \(3 entries, then 2\)$/);
  });
});

describe("extension payloads are their bytes", () => {
  const u16 = new Uint16Array([0x0102, 0x0304, 0x0506]);
  const bytesOf16 = new Uint8Array(u16.buffer);

  test("ExtData whose data is a Uint16Array writes all its bytes (byteLength)", () => {
    const ext = new ExtData(9, u16 as unknown as Uint8Array);
    const expected = encode(new ExtData(9, bytesOf16));
    expect(hex(encode(ext))).toBe(hex(expected));
    expect((decode(encode(ext)) as ExtData).data).toEqual(bytesOf16);
  });

  test.each([
    ["a Uint16Array", () => new Uint16Array([1, 2]), new Uint8Array(new Uint16Array([1, 2]).buffer)],
    ["a DataView of part of a buffer", () => new DataView(new Uint8Array([9, 8, 7, 6]).buffer, 1, 2), new Uint8Array([8, 7])],
    ["an ArrayBuffer", () => new Uint8Array([5, 6, 7]).buffer, new Uint8Array([5, 6, 7])],
  ])("an extension encode returning %s writes its bytes", (_, make, expected) => {
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({ type: 4, encode: (v) => (v instanceof RegExp ? (make() as unknown as Uint8Array) : null), decode: (d) => d.slice() });
    const bytes = encode(/x/, { extensionCodec });
    expect(hex(bytes)).toBe(hex(encode(new ExtData(4, expected))));
  });

  test.each([["a string", "abc"], ["a number", 3], ["an array of numbers", [1, 2]], ["an object", {}]])("an extension encode returning %s is INVALID_EXT", (_, payload) => {
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({ type: 4, encode: () => payload as never, decode: () => null });
    // (not a Date: the timestamp claims Dates before type 4)
    expectError(() => encode(new Set([0]), { extensionCodec }), "INVALID_EXT", /^Cannot encode extension type 4: encode must return bytes, a function or null$/);
  });
});

describe("invalid options throw INVALID_ARGUMENT when the encoder is made", () => {
  test.each([
    [{ maxDepth: -1 }, /^Invalid encode option maxDepth: -1 \(expected an integer from 0 to Infinity\)$/],
    [{ maxDepth: 1.5 }, /maxDepth: 1\.5/],
    [{ maxDepth: "10" }, /maxDepth: "10"/],
    [{ maxDepth: NaN }, /maxDepth: NaN/],
    [{ initialBufferSize: "x" }, /^Invalid encode option initialBufferSize: "x" \(expected an integer from 0 to 4294967296\)$/],
    [{ initialBufferSize: -5 }, /initialBufferSize: -5/],
    [{ maxByteLength: -1 }, /maxByteLength/],
    [{ forceFloat32: "yes" }, /^Invalid encode option forceFloat32: "yes" \(expected a boolean\)$/],
    [{ sortKeys: 1 }, /sortKeys: 1/],
    [{ ignoreUndefined: null }, /ignoreUndefined: null/],
    [{ useBigInt64: "true" }, /useBigInt64/],
    [{ forceIntegerToFloat: {} }, /forceIntegerToFloat: \[object Object\]/],
    [{ extensionCodec: {} }, /^Invalid encode option extensionCodec: \[object Object\] \(expected an ExtensionCodec, or an object with tryToEncode and decode\)$/],
    [{ extensionCodec: new Map() }, /extensionCodec: \[object Map\]/],
    [{ poolResults: Symbol("p") }, /poolResults: Symbol\(p\)/],
  ])("%o", (options, message) => {
    expectError(() => new Encoder(options as EncodeOptions), "INVALID_ARGUMENT", message);
    expectError(() => encode(1, options as EncodeOptions), "INVALID_ARGUMENT", message);
  });

  test("options that are not an object", () => {
    expectError(() => new Encoder("fast" as unknown as EncodeOptions), "INVALID_ARGUMENT", /^Invalid encode option options: "fast" \(expected an object\)$/);
  });

  test("every option may be undefined (exactOptionalPropertyTypes), unknown keys are ignored, null options are none", () => {
    const options: EncodeOptions = {
      extensionCodec: undefined,
      context: undefined,
      sortKeys: undefined,
      forceFloat32: undefined,
      forceIntegerToFloat: undefined,
      useBigInt64: undefined,
      ignoreUndefined: undefined,
      maxDepth: undefined,
      initialBufferSize: undefined,
      maxByteLength: undefined,
      poolResults: undefined,
    };
    expect(hex(new Encoder(options).encode({ a: 1 }))).toBe("81-a1-61-01");
    expect(hex(encode([1], { useMap: true } as EncodeOptions))).toBe("91-01");
    expect(hex(new Encoder(null as unknown as EncodeOptions).encode(1))).toBe("01");
    expect(hex(encode([[1]], { maxDepth: Infinity, initialBufferSize: 0, maxByteLength: 0 }))).toBe("91-91-01");
  });
});

describe("extensions that re-enter encode() or claim any value", () => {
  test("depth carries through extensions that re-enter encode()", () => {
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({ type: 1, encode: (v) => (v instanceof Set ? encode([...v], { extensionCodec, maxDepth: 1 }) : null), decode: () => null });
    // the Set at depth 0, its payload array at depth 1: too deep for the inner maxDepth 1
    expectError(() => encode(new Set([1]), { extensionCodec }), "MAX_DEPTH", /too deep objects in depth 2 \(maxDepth 1\)/);
    // and is 0 again afterwards
    expect(hex(encode([[1]], { maxDepth: 2 }))).toBe("91-91-01");
  });

  test("bigints, functions and symbols are offered to the extensions, Dates are the timestamp first", () => {
    const extensionCodec = new ExtensionCodec();
    const claim = (v: unknown) => (typeof v === "bigint" ? Uint8Array.of(1) : typeof v === "function" ? Uint8Array.of(2) : typeof v === "symbol" ? Uint8Array.of(3) : v instanceof Date ? Uint8Array.of(4) : null);
    extensionCodec.register({ type: 7, encode: claim, decode: () => null });
    const value = [5n, () => 1, Symbol("s"), new Date(0)];
    expect(hex(encode(value, { extensionCodec }))).toBe("94-d4-07-01-d4-07-02-d4-07-03-d6-ff-00-00-00-00");
    // a codec of another kind (tryToEncode + decode), asked about every object
    const own = { tryToEncode: (v: unknown) => (v instanceof Set ? new ExtData(9, Uint8Array.of(v.size)) : null), decode: () => null };
    expect(hex(encode([new Set([1, 2])], { extensionCodec: own }))).toBe("91-d4-09-02");
  });
});

// The overflow is caught by the innermost encode, near the stack limit: a RegExp compiled there can
// end the process with "FATAL ERROR: RegExpCompiler Allocation failed" instead of throwing. Run in a
// child, from the built package, as a crash would end the test worker. Where the overflow lands
// depends on the stack size, so several are tried.
describe("encode: stack overflows near the stack limit", () => {
  test("stack overflows deep inside re-entrant extension encoders, 100 times: the process survives, every one is MAX_DEPTH", async () => {
    const script = `
      import { encode, ExtensionCodec } from ${JSON.stringify(DIST + "index.js")};
      const codec = new ExtensionCodec();
      const options = { extensionCodec: codec, maxDepth: Infinity };
      codec.register({ type: 1, encode: (v) => (v instanceof Set ? encode([...v], options) : null), decode: () => null });
      let value = [];
      for (let i = 0; i < 3000; i++) value = new Set([[value]]);
      const codes = new Set();
      for (let i = 0; i < 100; i++) {
        const from = (n) => (n === 0 ? (() => { try { encode(value, options); return "no error"; } catch (e) { return e.code ?? String(e); } })() : from(n - 1));
        codes.add(from(i % 37));
      }
      console.log(JSON.stringify([...codes]));
    `;
    for (const [stackSize, out] of await atStackSizes(script, [500, 700, 800, 950])) expect(out, `--stack-size=${stackSize}`).toEqual(["MAX_DEPTH"]);
  }, 120_000);
});
