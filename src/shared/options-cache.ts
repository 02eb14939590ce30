/**
 * Which `Encoder`/`Decoder` serves `encode(value, options)` and
 * `decode(bytes, options)`. An options object passed again is found by
 * identity; a new object with the same contents (an options literal written
 * inline in the call) finds the same coder by its contents, so it does not
 * build a coder per call. A cached object that was changed since is noticed
 * and gets a coder for its new contents.
 *
 * @module
 */

/**
 * How many coders the content cache keeps (first in, first out). Programs
 * use a few option sets; more only happens with a new `context` or
 * `extensionCodec` object per call, and each coder costs little to make.
 */
const CONTENT_CACHE_ENTRIES = 64;

/** A coder, and the options' enumerable keys and values it was made from: `[key, value, key, value, ...]`. */
type Entry<T> = readonly [coder: T, snapshot: unknown[]];

/** Ids of objects (codecs, contexts) inside option sets, for content keys that compare them by identity. */
const ids = new WeakMap<object, number>();
let nextId = 0;

/**
 * Coders by options contents. The contents of the last options seen are
 * compared first (a hoisted options object, or an inline literal written
 * the same way on every call, match them); then objects that made a coder
 * are found by identity, then any options by a key built from their
 * contents.
 */
export class OptionsCache<T> {
  private readonly byObject = new WeakMap<object, Entry<T>>();
  private readonly byContent = new Map<string, Entry<T>>();
  private readonly make: (options: object) => T;
  private last: Entry<T> | null = null;

  /** @param make builds a coder for an options object (and throws for invalid options) */
  constructor(make: (options: object) => T) {
    this.make = make;
  }

  /** The coder for `options`: the last one if the contents match, else cached by identity or contents, else made. */
  get(options: object): T {
    const last = this.last;
    if (last !== null && typeof options === "object" && unchanged(options, last[1])) return last[0];
    return this.lookup(options);
  }

  private lookup(options: object): T {
    // not an object: the coder's constructor says what is wrong (nothing is cached)
    if (typeof options !== "object") return this.make(options);
    let entry = this.byObject.get(options);
    if (entry === undefined || !unchanged(options, entry[1])) {
      const key = contentKey(options);
      entry = key === null ? undefined : this.byContent.get(key);
      if (entry === undefined) entry = this.add(options, key);
    }
    this.last = entry;
    return entry[0];
  }

  /** Makes a coder for `options` and remembers it by identity and (unless `key` is null) by contents. */
  private add(options: object, key: string | null): Entry<T> {
    const snapshot: unknown[] = [];
    // made from a private copy of the values: the coder may be shared by equal
    // options objects, and one of them changing later must not change it
    const values: Record<string, unknown> = Object.create(null);
    for (const name in options) {
      const value = (options as Record<string, unknown>)[name];
      snapshot.push(name, value);
      values[name] = value;
    }
    const entry: Entry<T> = [this.make(values), snapshot];
    if (key !== null) {
      if (this.byContent.size >= CONTENT_CACHE_ENTRIES) this.byContent.delete(this.byContent.keys().next().value!);
      this.byContent.set(key, entry);
    }
    this.byObject.set(options, entry);
    return entry;
  }
}

/** Whether `options` still has exactly the keys and values in `snapshot`. */
function unchanged(options: object, snapshot: unknown[]): boolean {
  let i = 0;
  for (const key in options) {
    if (snapshot[i] !== key || snapshot[i + 1] !== (options as Record<string, unknown>)[key]) return false;
    i += 2;
  }
  return i === snapshot.length;
}

/**
 * A string equal for two options objects exactly when they have the same
 * enumerable keys in the same order with the same values (objects and
 * functions by identity), or null when a value cannot be keyed (a symbol).
 */
function contentKey(options: object): string | null {
  let key = "";
  for (const name in options) {
    const value: unknown = (options as Record<string, unknown>)[name];
    const type = typeof value;
    if (type === "symbol") return null;
    let id: number | undefined;
    if ((type === "object" && value !== null) || type === "function") {
      id = ids.get(value as object);
      if (id === undefined) ids.set(value as object, (id = nextId++));
    }
    // the type's initial, then the value: strings quoted, objects by id
    key += `${name.length}:${name}=${type[0]}${id ?? (type === "string" ? JSON.stringify(value) : String(value))};`;
  }
  return key;
}
