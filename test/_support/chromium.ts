// Headless Chromium for the browser tests: Debian's `chromium` (apt-get
// install chromium), or CHROMIUM_PATH, driven by playwright-core with
// executablePath. Without it: in CI the tests fail; elsewhere they are
// skipped with a message.
import { existsSync } from "node:fs";

/** CHROMIUM_PATH, when set, is the only candidate. */
export const CANDIDATES: string[] = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
export const CHROMIUM: string | undefined = CANDIDATES.find((p) => existsSync(p));
export const IN_CI = Boolean(process.env.CI);
export const HOW_TO_INSTALL = "install it with `sudo apt-get install chromium` (Debian/Ubuntu) or point CHROMIUM_PATH at a Chromium binary";

/** Whether the browser tests run here (else they are skipped, with `warning` printed). */
export function chromiumAvailable(what: string): boolean {
  if (!CHROMIUM && !IN_CI) console.warn(`\n[${what}] SKIPPED: no Chromium found at ${CANDIDATES.join(", ")}; ${HOW_TO_INSTALL}.\n`);
  return Boolean(CHROMIUM) || IN_CI;
}

/** Launches headless Chromium (throws in CI when there is none). */
export async function launchChromium(): Promise<import("playwright-core").Browser> {
  if (!CHROMIUM) throw new Error(`CI is set but no Chromium was found at ${CANDIDATES.join(", ")}; ${HOW_TO_INSTALL}`);
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
