// Types of vectors.mjs (plain JS so node, bun, deno and the browser test share it).
export declare const SUITE_URL: URL;
export declare const VECTORS_DIR_URL: URL;
/** Every vector file as `{ fileName: parsedJson }`. */
export declare function loadVectorFiles(options?: { suite?: boolean | "if-installed" }): Record<string, unknown>;
