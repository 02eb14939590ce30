/**
 * Where a value sits inside the value being encoded (`$.user.onClick`),
 * and whether the walk meets a cycle first: the cold path behind the
 * encoder's error messages. Nothing here runs unless an encode fails.
 *
 * @module
 */

import { KIND_ARRAY, KIND_MAP, KIND_RECORD, KIND_SET, objectKind } from "../format/kind.ts";

/** What {@link findPath} found: the path of the value, and for a cycle the path of its first occurrence. */
export interface Found {
  path: string;
  cycleTo?: string;
}

/** How many values {@link findPath} looks at before giving up. */
const WALK_BUDGET = 1_000_000;

/**
 * Walks `root` (at `rootDepth`) in the order the encoder writes it, for
 * error messages: stops at `target` found at `targetDepth`, or at the first
 * object that contains itself (a cycle), whichever comes first; null when
 * neither is found. Iterative, so a deep value cannot exhaust the stack
 * here; reads the value again (getters run again) and never calls
 * extensions (objects they would claim are walked as the built-in types).
 */
export function findPath(root: unknown, rootDepth: number, sortKeys: boolean, target: unknown, targetDepth: number): Found | null {
  interface Frame {
    value: object;
    seg: string;
    kids: Array<[string, unknown]>;
    next: number;
    depth: number;
  }
  const stack: Frame[] = [];
  const onChain = new Map<object, number>();
  const path = (upTo: number, last?: string): string => {
    const segs = stack.slice(1, upTo + 1).map((f) => f.seg);
    if (last !== undefined) segs.push(last);
    const text = segs.length <= 12 ? segs.join("") : `${segs.slice(0, 4).join("")}...(${segs.length - 10} more)...${segs.slice(-6).join("")}`;
    return "$" + text;
  };
  let budget = WALK_BUDGET;
  /** Looks at one value; returns what it found, or undefined to go on. */
  const visit = (value: unknown, seg: string, depth: number): Found | undefined => {
    if (depth === targetDepth && value === target) return { path: path(stack.length - 1, seg) };
    if (typeof value !== "object" || value === null) return undefined;
    const at = onChain.get(value);
    if (at !== undefined) return { path: path(stack.length - 1, seg), cycleTo: path(at) };
    if (depth >= targetDepth || --budget < 0) return undefined;
    stack.push({ value, seg, kids: kidsOf(value, sortKeys), next: 0, depth });
    onChain.set(value, stack.length - 1);
    return undefined;
  };
  try {
    let found = visit(root, "", rootDepth);
    while (found === undefined && stack.length > 0 && budget >= 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.kids.length) {
        const [seg, kid] = top.kids[top.next++]!;
        found = visit(kid, seg, top.depth + 1);
      } else {
        onChain.delete(top.value);
        stack.pop();
      }
    }
    return found ?? null;
  } catch {
    return null; // a getter or a Proxy threw this time: no path
  }
}

/** The children of `value` that may hold objects, functions or symbols, with their path segments, in encoding order. */
function kidsOf(value: object, sortKeys: boolean): Array<[string, unknown]> {
  const kids: Array<[string, unknown]> = [];
  const add = (seg: string, kid: unknown): void => {
    if ((typeof kid === "object" && kid !== null) || typeof kid === "function" || typeof kid === "symbol") kids.push([seg, kid]);
  };
  const kind = objectKind(value);
  if (kind === KIND_ARRAY) {
    const arr = value as unknown[];
    for (let i = 0; i < arr.length; i++) add(`[${i}]`, arr[i]);
  } else if (kind === KIND_MAP) {
    let i = 0;
    for (const [k, v] of value as Map<unknown, unknown>) {
      add(`.keys()[${i}]`, k);
      const simple = typeof k === "string" ? JSON.stringify(k) : typeof k === "number" || typeof k === "boolean" || k == null ? String(k) : null;
      add(simple === null ? `.values()[${i}]` : `.get(${simple})`, v);
      i++;
    }
  } else if (kind === KIND_SET) {
    let i = 0;
    for (const v of value as Set<unknown>) add(`[${i++}]`, v);
  } else if (kind === KIND_RECORD) {
    const keys = Object.keys(value);
    if (sortKeys) keys.sort();
    for (const k of keys) add(/^[A-Za-z_$][\w$]*$/.test(k) ? "." + k : `[${JSON.stringify(k)}]`, (value as Record<string, unknown>)[k]);
  }
  // binaries, dates and ExtData are leaves
  return kids;
}
