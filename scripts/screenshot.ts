/**
 * `npm run screenshot`: docs/images/ui.png, the agent's web UI as the README and docs/agent.md
 * show it. Starts the built agent (`bexpr/server`, so `npm run build` first) with its demo data on
 * a free port, opens `/ui/` in the machine's Chromium (scripts/chromium.ts) with a filter over
 * every namespace and every row listed, clicks a job the filter does not match, and takes the
 * page once its explanation is drawn.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startAgent } from "bexpr/server";
import { CHROMIUM_PATH, hasChromium, launchChromium } from "./chromium.js";

/** Where the image goes, from the repository's root. */
const OUTPUT = "docs/images/ui.png";

/** A filter with a group and a collection, so the explanation shows both. */
const FILTER = 'Status == "running" and (Type == "service" or any Datacenters as dc { dc == "dc2" })';

/** The row explained: a batch job in dc1, which the filter does not match. */
const EXPLAINED_ROW = "default/report";

/** The image's size in CSS pixels: the page's width, cut below its content. */
const SHOT_SIZE = { width: 1360, height: 540 };

/** How long each step may take. */
const STEP_TIMEOUT_MS = 15_000;

async function main(): Promise<void> {
  if (!hasChromium()) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install chromium`);
  // From dist-tools/scripts/ (compiled) the repository is two directories up.
  const output = fileURLToPath(new URL(`../../${OUTPUT}`, import.meta.url));
  mkdirSync(dirname(output), { recursive: true });
  const agent = await startAgent({ port: 0, demo: true, logLevel: "silent", placementDelayMs: 1_000 });
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    // As tall as the page's content, so the image has no empty band at the bottom.
    await page.setViewportSize(SHOT_SIZE);
    const query = new URLSearchParams({ list: "jobs", namespace: "*", all: "1", filter: FILTER });
    await page.goto(`${agent.url}/ui/?${query}`);
    await page.locator(`tr[data-key="${EXPLAINED_ROW}"].no-match`).click();
    await page.locator("#explain .verdict").waitFor();
    await page.screenshot({ path: output });
    console.log(`wrote ${OUTPUT}`);
  } finally {
    await browser.close();
    await agent.close();
  }
}

await main();
