/**
 * See inside MessagePack: {@link inspect} reads bytes into a tree of
 * nodes (offset, header, form, length, value or children; errors at their
 * offset, exactly as `decode` reports them), {@link renderText} prints
 * that tree one line per value, and {@link toJson} / {@link fromJson}
 * convert MessagePack to JSON and back without losing a byte. Built on
 * the decoder's own first-byte table, so it never disagrees with `decode`.
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { inspect, renderText } from "@resizable/msgpack/inspect";
 * const text = renderText(inspect(encode({ id: 7 })));
 * console.assert(text.includes("fixmap (1 entry)") && text.includes("positive fixint 7"));
 * ```
 *
 * @module
 */

export { inspect, type InspectNode, type InspectOptions, type InspectResult, type InspectType } from "./inspect/tree.ts";
export { renderText, type RenderOptions } from "./inspect/render.ts";
export { fromJson, toJson } from "./inspect/json.ts";
export { nodeValue } from "./inspect/value.ts";
