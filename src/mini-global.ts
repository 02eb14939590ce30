/**
 * The entry of `dist/browser/msgpack-mini.iife.min.js`: the mini entry as
 * the global `ResizableMsgpackMini`, for a classic `<script>` or
 * `importScripts()`. An object literal, not esbuild's `--global-name`
 * namespace, which costs about 200 B gzip of export helpers.
 *
 * @module
 */

import { decode, DecodeError, encode, EncodeError, ExtData, ExtensionCodec } from "./mini.ts";

(globalThis as { ResizableMsgpackMini?: unknown }).ResizableMsgpackMini = { encode, decode, ExtData, ExtensionCodec, DecodeError, EncodeError };
