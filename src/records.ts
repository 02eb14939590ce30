/**
 * msgpackr's record extension, for programs that use it: importing this
 * entry lets every encoder and decoder of the program take `useRecords`
 * (with `structures`, `maxSharedStructures` and `sequential`). It also
 * exports everything the main entry does, so a program written for
 * msgpackr's records needs one import line. Without it, those options are
 * an `INVALID_ARGUMENT` error that names this import, and the main entry
 * carries none of the records code.
 *
 * Spec: https://github.com/kriszyp/msgpackr#record-structure-extension-definition
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack/records";
 * const rows = [{ id: 1, name: "a" }, { id: 2, name: "b" }];
 * const bytes = encode(rows, { useRecords: true }); // the field names written once
 * console.assert(bytes.length < encode(rows).length);
 * console.assert((decode(bytes, { useRecords: true }) as typeof rows)[1]!.name === "b");
 * ```
 *
 * @module
 */

import { install } from "./common/modules.ts";
import { RECORD_DECODING } from "./records/read.ts";
import { RECORD_ENCODING } from "./records/write.ts";

install("records", { decoding: RECORD_DECODING, encoding: RECORD_ENCODING });

export * from "./index.ts";
