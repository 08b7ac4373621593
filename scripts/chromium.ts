/**
 * Debian's Chromium (`/usr/bin/chromium`, the `chromium` package) driven by playwright-core, for
 * the web UI's browser test and `npm run screenshot`. Never a browser Playwright downloads: the
 * machine's own, in a fresh profile, with the networking Chromium does on its own turned off.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Chromium's flags: headless, no sandbox (it needs user namespaces that containers often lack),
 * no GPU, and none of its own traffic (updates, sync, safe-browsing lists, first-run pages), so a
 * run talks to the agent under test and nothing else.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** The page size of the runs (and of docs/images/ui.png). */
export const VIEWPORT = { width: 1360, height: 820 } as const;

/** Whether the machine has the browser. */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** A browser context in a profile of its own; `close()` also deletes the profile. */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches the machine's Chromium with {@link CHROMIUM_ARGS} in a fresh temporary profile. */
export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "bexpr-chromium-"));
  try {
    // Playwright's own `headless` option would add its flags; ours are in CHROMIUM_ARGS.
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: false, args: [...CHROMIUM_ARGS], viewport: VIEWPORT });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
