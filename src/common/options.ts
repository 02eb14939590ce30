/**
 * What the encoder's and the decoder's options have in common: the rules
 * their values are checked by, the check of the options object (misspelled
 * names included), and the cache that finds the coder for options written
 * inline in a call.
 *
 * Each side (encode, decode) declares each of its options twice, side by
 * side in one file: in its options interface (the type, and the
 * documentation that docs/options.md's tables are made from, by
 * test/tools/options-doc.mjs) and as one line of its resolver, which reads
 * the option once by its literal name, checks it by its rule and fills in
 * its default, into an object of fixed shape typed against the interface
 * key for key. The stream helpers' options are the sides' options too. The
 * names a side knows, for the misspelling check, are the keys of the
 * object its resolver returns ({@link checked}).
 *
 * @module
 */

import { decodeNeeds, encodeNeeds } from "./errors.ts";
import { dropIn } from "./modules.ts";

/** What an option takes: the text an error says its value should be, and the test of a value (never given undefined). */
export type Rule<T> = readonly [expected: string, accepts: (v: unknown) => v is T];

/** Each option of `Options` as a side uses it once resolved: present, and never `undefined`. */
export type Resolved<Options> = { readonly [K in keyof Options]-?: Exclude<Options[K], undefined> };

/** A side's error for option `name` whose value is not `expected` (`name` "options": the options argument). */
export type Fail = (name: string, value: unknown, expected: string) => Error;

/** A flag. */
export const BOOLEAN: Rule<boolean> = ["a boolean", (v): v is boolean => typeof v === "boolean"];

/** A list (the record `structures`). */
export const ARRAY: Rule<never[]> = ["an array of field name arrays", (v): v is never[] => Array.isArray(v)];

/** A limit: an integer from 0 to `max`, or Infinity when `max` is; `text` says so in an error. */
export const upTo = (max: number, text = `an integer from 0 to ${max}`): Rule<number> => [text, (v): v is number => typeof v === "number" && v >= 0 && v <= max && (v % 1 === 0 || v === Infinity)];

/** The value `v` of option `name`, checked by `rule` (with the side's error `fail`), or `fallback` when undefined. */
export function take<T, F = T>(fail: Fail, v: unknown, name: string, rule: Rule<T>, fallback: F): T | F {
  if (v !== undefined && !rule[1](v)) throw fail(name, v, rule[0]);
  return v === undefined ? fallback : v;
}

/**
 * `resolved`, what a side's resolver read from `options` (an object, or
 * null or undefined for none), once `options` is checked: every name it
 * has, own or inherited (up to `Object.prototype`), enumerable or not,
 * accessors included, is checked against the keys of `resolved`, the
 * side's options: a name one edit from an option (`maxStrLenght`) throws,
 * with the option meant; other names pass. No value is read but a
 * misspelled one's, for the message.
 *
 * @throws what `fail` makes, for options that are not an object or a misspelled name
 */
export function checked<R extends object>(options: unknown, resolved: R, fail: Fail): R {
  if (options !== undefined && typeof options !== "object") throw fail("options", options, "an object");
  for (let o = (options ?? null) as object | null; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      const meant = name in resolved ? undefined : misspelling(name, Object.keys(resolved));
      // a name that is not a plain identifier is quoted, so a control character in it reaches no terminal
      if (meant !== undefined) throw fail(/^[\w$]+$/.test(name) ? name : JSON.stringify(name), (options as Record<string, unknown>)[name], `an option: did you mean ${meant}?`);
    }
  }
  return resolved;
}

/**
 * The options `new Encoder(...args)` (`side` "encode") or
 * `new Decoder(...args)` (`side` "decode") means: its one argument (an
 * options object, or nothing), or for @msgpack/msgpack 2.x's positional
 * form (a codec first, or more than one argument:
 * `new Encoder(extensionCodec, context, maxDepth, initialBufferSize,
 * sortKeys, forceFloat32, ignoreUndefined, forceIntegerToFloat)`,
 * `new Decoder(extensionCodec, context, maxStrLength, maxBinLength,
 * maxArrayLength, maxMapLength, maxExtLength)`) the options its arguments
 * name, read by the module that installs that form.
 *
 * @throws {EncodeError | DecodeError} `INVALID_ARGUMENT` naming the
 *   import, for the positional form without its module
 */
export const argumentsOf = <O>(side: "encode" | "decode", first: unknown, rest: readonly unknown[]): O | undefined =>
  rest.length === 0 && typeof (first as Record<string, unknown> | null | undefined)?.[side === "encode" ? "tryToEncode" : "decode"] !== "function" ? ((first ?? undefined) as O | undefined) : (dropIn("positional", side === "encode" ? encodeNeeds : decodeNeeds, `form new ${side === "encode" ? "Encoder" : "Decoder"}(extensionCodec, context, ...)`)(side, [first, ...rest]) as O);

/**
 * The option of `known` that `name` was likely meant to be, when it is
 * not one but differs from one only in letter case or by one edit
 * (inserting, deleting or changing a letter, or swapping two neighbours),
 * as `maxStrLenght` from `maxStrLength`; else undefined. Other libraries'
 * option names are far from ours and pass.
 */
export function misspelling(name: string, known: Iterable<string>): string | undefined {
  const a = name.toLowerCase();
  for (const option of known) {
    const b = option.toLowerCase();
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    // changed (or equal), a letter too many, a letter missing, two neighbours swapped
    const tail = a.slice(i + 1);
    if (tail === b.slice(i + 1) || tail === b.slice(i) || a.slice(i) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))) return option;
  }
  return undefined;
}

/**
 * The coder for resolved options, made by `make` on first need: coders
 * are kept by the options they were made from, compared field by field
 * (objects and functions by identity), at most 64, the most recently used
 * first, so hoisted options and an inline literal written the same way on
 * every call find one coder (two objects of one resolver have the same
 * keys). A new `context` or `extensionCodec` object per call makes a coder
 * per call, and each costs little to make.
 */
export function coderCache<T>(make: (options: never) => T): (options: Readonly<Record<string, unknown>>) => T {
  const entries: [options: Readonly<Record<string, unknown>>, coder: T][] = [];
  return (options) => {
    search: for (let i = 0; i < entries.length; i++) {
      for (const key in options) if (!Object.is(entries[i]![0][key], options[key])) continue search;
      if (i > 0) entries.unshift(entries.splice(i, 1)[0]!);
      return entries[0]![1];
    }
    if (entries.unshift([options, make(options as never)]) > 64) entries.pop();
    return entries[0]![1];
  };
}
