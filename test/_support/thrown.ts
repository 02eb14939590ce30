/** What a call throws or a promise rejects with, for tests that look at the error itself. */

/** The error `f` throws; fails the test when it throws nothing. */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error, but nothing was thrown");
}

/** The reason `p` rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}
