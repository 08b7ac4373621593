/**
 * The web UI's editing tools and the details a newcomer trips on, in Debian's Chromium at
 * 1280×800: an empty filter is no mistake, a wide table stays in its card, switching lists says
 * what happens to the filter, closing a string opens no completion list, Format and Fix all, Copy
 * as curl (the command is run and lists what the page lists), the recent filters, and the dark
 * theme that follows the system's. Screenshots go to $BEXPR_UI_SHOTS when it names a directory.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchChromium, CHROMIUM_PATH, type Browser } from "../../scripts/chromium.js";
import { defaultUiDirectory } from "../../src/server/http/ui-routes.js";
import type { Agent } from "../../src/server/index.js";
import { send, startTestAgent } from "../agent/support.js";
import { logCspViolations } from "./csp.js";

const required = process.env.BEXPR_TEST_REQUIRE_CHROMIUM === "1";
const available = hasChromium();
const UI_TIMEOUT_MS = 10_000;
/** Longer than the editor's lint delay (300 ms) and the page's debounce: what is not marked by then is not marked. */
const SETTLE_MS = 1_000;

/** The keys (`namespace/ID`) of the rows the page shows, in order. */
const shownKeys = (page: Page) => page.locator("#rows tbody tr").evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.key ?? ""));

/** Types into the editor as a person would (completion lists left as they open). */
async function typeInto(page: Page, text: string): Promise<void> {
  await page.locator(".cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(text);
}

describe.skipIf(!available && !required)("the web UI's tools in Chromium", () => {
  let browser: Browser;
  let agent: Agent;
  let shots: string;
  const keepShots = process.env.BEXPR_UI_SHOTS;
  const problems: string[] = [];

  /** A new page at 1280×800 on `path`, its script errors and the refusals of its CSP collected. */
  async function open(path: string): Promise<Page> {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.setViewportSize({ width: 1280, height: 800 });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
    });
    await logCspViolations(page);
    await page.goto(`${agent.url}${path}`);
    return page;
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: join(keepShots !== undefined && existsSync(keepShots) ? keepShots : shots, `${name}.png`) });

  beforeAll(async () => {
    if (!available) throw new Error(`BEXPR_TEST_REQUIRE_CHROMIUM=1 but ${CHROMIUM_PATH} is missing: apt-get install chromium`);
    if (!existsSync(join(defaultUiDirectory(), "index.html"))) throw new Error("dist/ui/ is missing: run npm run build first");
    shots = mkdtempSync(join(tmpdir(), "bexpr-ui-tools-"));
    [browser, agent] = await Promise.all([launchChromium(), startTestAgent({ port: 0, demo: true, logLevel: "silent", placementDelayMs: 60_000 })]);
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: agent.url });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), agent?.close()]);
    if (shots !== undefined) rmSync(shots, { recursive: true, force: true });
  });

  it("marks nothing in an empty filter, which lists every row", async () => {
    const page = await open("/ui/");
    await expect.poll(() => page.locator("#filter-status").textContent()).toBe("No filter: every row is listed.");
    await page.waitForTimeout(SETTLE_MS);
    expect(await page.locator(".cm-lintRange-error, .cm-lint-marker-error").count()).toBe(0);
    await typeInto(page, "   ");
    await page.waitForTimeout(SETTLE_MS);
    expect(await page.locator(".cm-lintRange-error, .cm-lint-marker-error").count()).toBe(0);
    await shoot(page, "empty");
    await page.close();
  });

  it("fits the widest table (every deployment, show all) in its card at 1280 pixels, its descriptions wrapped", async () => {
    const page = await open(`/ui/?list=deployments&namespace=*&filter=${encodeURIComponent('Status == "cancelled"')}&all=1`);
    await expect.poll(() => page.locator("#rows tbody tr").count()).toBeGreaterThan(0);
    const fits = await page.locator("section.rows").evaluate((card) => ({ card: card.getBoundingClientRect().right, table: card.querySelector("table")!.getBoundingClientRect().right, scroller: card.querySelector(".table-scroll")!.getBoundingClientRect().right }));
    // The scroller ends inside the card, and the table inside the scroller: nothing to scroll to.
    expect(fits.scroller).toBeLessThanOrEqual(fits.card);
    expect(fits.table).toBeLessThanOrEqual(fits.scroller);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shoot(page, "deployments-all");
    await page.close();
  });

  it("carries a filter both lists can use to the other list, and says where one that cannot went", async () => {
    const page = await open("/ui/");
    await typeInto(page, 'Status == "running"');
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#filter-status").textContent()).toContain("follow this filter live");
    await page.locator('input[value="deployments"]').check();
    await expect.poll(() => page.locator(".cm-content").textContent()).toBe('Status == "running"');
    await expect.poll(() => page.evaluate(() => new URLSearchParams(location.search).get("filter"))).toBe('Status == "running"');

    await page.locator('input[value="jobs"]').check();
    await typeInto(page, "Priority == 50");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#filter-status").textContent()).toContain("follow this filter live");
    await page.locator('input[value="deployments"]').check();
    // Deployments have no Priority: their own filter stays, and the status line says so.
    await expect.poll(() => page.locator("#filter-status").textContent()).toContain("The jobs filter is kept for the jobs list (it does not apply to deployments)");
    expect(await page.locator(".cm-content").textContent()).toBe('Status == "running"');
    await page.locator('input[value="jobs"]').check();
    await expect.poll(() => page.locator(".cm-content").textContent()).toBe("Priority == 50");
    await page.close();
  });

  it("opens no completion list when a string is closed, and one when asked", async () => {
    const page = await open("/ui/");
    await typeInto(page, 'Status == "running"');
    await page.waitForTimeout(SETTLE_MS);
    expect(await page.locator(".cm-tooltip-autocomplete").count()).toBe(0);
    expect(await page.locator("#filter-status").isVisible()).toBe(true);
    await shoot(page, "closed-string");
    await page.keyboard.type(" ");
    await page.keyboard.press("Control+Space");
    await expect.poll(() => page.locator(".cm-tooltip-autocomplete li").allTextContents()).toEqual(expect.arrayContaining(["and", "or"]));
    await page.close();
  });

  it("formats the filter and applies every fix from the buttons", async () => {
    const page = await open("/ui/");
    await typeInto(page, '(Status=="running")   and   ((Type == "service"))');
    await page.keyboard.press("Escape");
    await page.locator("#format-button").click();
    await expect.poll(() => page.locator(".cm-content").textContent()).toBe('Status == "running" and Type == "service"');

    await typeInto(page, 'status = "running" AND !Stop');
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#filter-status").textContent()).toMatch(/problems? in the filter/);
    await page.locator("#fix-all-button").click();
    await expect.poll(() => page.locator(".cm-content").textContent()).toBe('Status == "running" and Stop == false');
    await expect.poll(() => page.locator("#filter-status").textContent()).toMatch(/^Applied \d+ fixes: .*follow this filter live\.$/);
    await shoot(page, "fixed");
    await page.close();
  });

  it("copies the request of the rows as curl, which lists the same rows", async () => {
    const page = await open("/ui/?namespace=*");
    await typeInto(page, 'Type == "service"');
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#filter-status").textContent()).toContain("follow this filter live");
    await expect.poll(() => shownKeys(page)).not.toEqual([]);
    await page.locator("#curl-button").click();
    await expect.poll(() => page.locator("#filter-status").textContent()).toContain("Copied the request as curl.");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await page.locator("#curl-text").textContent());
    expect(copied).toMatch(/^curl -sS 'http:\/\/127\.0\.0\.1:\d+\/v1\/jobs\?namespace=\*&filter=Type\+%3D%3D\+%22service%22'$/);
    // Run as a shell runs it (asynchronously: the agent answering it is in this process).
    const { stdout } = await promisify(execFile)("sh", ["-c", copied], { encoding: "utf8" });
    const listed = JSON.parse(stdout) as { Namespace: string; ID: string }[];
    expect(listed.map((row) => `${row.Namespace}/${row.ID}`)).toEqual(await shownKeys(page));
    await page.close();
  });

  it("remembers the filters followed, most recent first, across reloads, and puts one back when chosen", async () => {
    const page = await open("/ui/");
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    for (const filter of ['Type == "batch"', 'Status == "running"']) {
      await typeInto(page, filter);
      await page.keyboard.press("Escape");
      // Followed once the page has taken it up (the address holds it then).
      await expect.poll(() => page.evaluate(() => new URLSearchParams(location.search).get("filter"))).toBe(filter);
    }
    await page.reload();
    const options = () => page.locator("#recent option").allTextContents();
    await expect.poll(options).toEqual(["—", 'Status == "running"', 'Type == "batch"']);
    await page.locator("#recent").selectOption('Type == "batch"');
    await expect.poll(() => page.locator(".cm-content").textContent()).toBe('Type == "batch"');
    const expected = (await send(`${agent.url}/v1/jobs?filter=${encodeURIComponent('Type == "batch"')}`)).json<{ Namespace: string; ID: string }[]>().map((row) => `${row.Namespace}/${row.ID}`);
    await expect.poll(() => shownKeys(page)).toEqual(expected);
    await page.close();
  });

  it("follows the system's dark theme, the editor too", async () => {
    const page = await open("/ui/");
    await page.emulateMedia({ colorScheme: "dark" });
    await typeInto(page, 'Status == "running"');
    await page.keyboard.press("Escape");
    const luminance = (css: string) => {
      const [r, g, b] = css.match(/\d+/g)!.map(Number);
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const page_ = await page.evaluate(() => getComputedStyle(document.body).backgroundColor || getComputedStyle(document.documentElement).backgroundColor);
    const rootBackground = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const editor = await page.locator(".cm-editor").evaluate((node) => getComputedStyle(node).backgroundColor);
    const text = await page.locator(".cm-content").evaluate((node) => getComputedStyle(node).color);
    expect(luminance(rootBackground)).toBeLessThan(60);
    expect(luminance(editor)).toBeLessThan(60);
    expect(luminance(text)).toBeGreaterThan(150);
    expect(page_).toBeDefined();
    await shoot(page, "dark");
    await page.emulateMedia({ colorScheme: "light" });
    expect(luminance(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor))).toBeGreaterThan(200);
    await page.close();
  });

  it("ran without a script error or a refusal of its Content-Security-Policy (no inline style, no eval probe)", () => {
    expect(problems).toEqual([]);
  });
});
