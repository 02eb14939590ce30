/** entries/ as a map of path (relative to the repository) to contents, from the built dist/. */
export function entryGuards(): Promise<Map<string, string>>;
