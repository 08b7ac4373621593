/**
 * The agent's web UI in a real browser: Debian's Chromium (`/usr/bin/chromium`) driven by
 * playwright-core, against an agent with the demo data. Without the browser the tests are skipped
 * with a message, unless `BEXPR_TEST_REQUIRE_CHROMIUM=1` (set by .ci/run) makes that a failure.
 * The page is the one `npm run build` wrote into dist/ui/.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page, Response as PageResponse } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultUiDirectory } from "../../src/server/http/ui-routes.js";
import type { Agent } from "../../src/server/index.js";
import { hasChromium, launchChromium, CHROMIUM_PATH, type Browser } from "../../scripts/chromium.js";
import { TOKEN_STORAGE_KEY } from "../../src/ui/api.js";
import { job, send, startTestAgent } from "../agent/support.js";
import { logCspViolations } from "./csp.js";

/** Set by .ci/run: a machine without the browser fails these tests instead of skipping them. */
const REQUIRE_VARIABLE = "BEXPR_TEST_REQUIRE_CHROMIUM";
const required = process.env[REQUIRE_VARIABLE] === "1";
const available = hasChromium();
if (!available && !required) {
  console.warn(`test/ui skipped: ${CHROMIUM_PATH} is missing (apt-get install chromium); set ${REQUIRE_VARIABLE}=1 to make that a failure`);
}

/** How long the page may take to show something (it answers in milliseconds; CI machines are slow). */
const UI_TIMEOUT_MS = 10_000;

const ROOT = "00000000-0000-4000-8000-0000000000b1";
const DEFAULT_READER = "00000000-0000-4000-8000-0000000000b2";

/** What the browser reported that should never happen: script errors, and anything the page's CSP refused. */
function watchProblems(page: Page, problems: string[]): void {
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
  });
}

/** The keys (`namespace/ID`) of the rows the page shows, in order. */
function shownKeys(page: Page): Promise<string[]> {
  return page.locator("#rows tbody tr").evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.key ?? ""));
}

/** Replaces the filter in the editor by typing it, as a person would. */
async function typeFilter(page: Page, filter: string): Promise<void> {
  await page.locator(".cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(filter);
  // Typing may have opened a completion list; it is not wanted here.
  await page.keyboard.press("Escape");
  // The page takes the filter up after a pause (and writes it into the address then): waiting
  // for it keeps a late restart from landing in the middle of what the test does next.
  await expect.poll(() => page.evaluate(() => new URLSearchParams(location.search).get("filter") ?? ""), { timeout: UI_TIMEOUT_MS }).toBe(filter.trim() === "" ? "" : filter);
}

/** The keys the agent's own list gives for a filter, to compare the page with. */
async function listedKeys(url: string, filter: string, namespace = "default", token?: string): Promise<string[]> {
  const response = await send(`${url}/v1/jobs?namespace=${encodeURIComponent(namespace)}&filter=${encodeURIComponent(filter)}`, token === undefined ? {} : { headers: { "x-svc-token": token } });
  expect(response.status, response.text).toBe(200);
  return response.json<{ ID: string; Namespace: string }[]>().map((item) => `${item.Namespace}/${item.ID}`);
}

describe.skipIf(!available && !required)("the web UI in Chromium", () => {
  let browser: Browser;
  let agent: Agent;
  let guarded: Agent;
  let page: Page;
  let shots: string;
  const problems: string[] = [];
  /** Every list request the page made, and what came back. */
  const listResponses: { url: URL; body: string }[] = [];

  beforeAll(async () => {
    if (!available) throw new Error(`${REQUIRE_VARIABLE}=1 but ${CHROMIUM_PATH} is missing: apt-get install chromium`);
    if (!existsSync(join(defaultUiDirectory(), "index.html"))) throw new Error("dist/ui/ is missing: run npm run build first");
    shots = mkdtempSync(join(tmpdir(), "bexpr-ui-shots-"));
    [browser, agent, guarded] = await Promise.all([
      launchChromium(),
      startTestAgent({ port: 0, demo: true, logLevel: "silent", placementDelayMs: 60_000 }),
      startTestAgent({
        port: 0,
        demo: true,
        logLevel: "silent",
        placementDelayMs: 60_000,
        acl: {
          enabled: true,
          bootstrapToken: ROOT,
          policies: [{ Name: "default-read", Rules: 'namespace "default" { policy = "read" }' }],
          tokens: [{ SecretID: DEFAULT_READER, Name: "default reader", Policies: ["default-read"] }],
        },
      }),
    ]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    watchProblems(page, problems);
    await logCspViolations(page);
    page.on("response", (response: PageResponse) => {
      const url = new URL(response.url());
      if (url.pathname === "/v1/jobs") void response.text().then((body) => listResponses.push({ url, body }), () => {});
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), agent?.close(), guarded?.close()]);
    if (shots !== undefined) rmSync(shots, { recursive: true, force: true });
  });

  it("marks a mistake as it is typed, does not send it, and applies its quick fix from the editor", async () => {
    await page.goto(`${agent.url}/ui/`);
    await typeFilter(page, 'Status = "running"');
    await expect.poll(() => page.locator("#filter-status").textContent(), { timeout: UI_TIMEOUT_MS }).toContain("1 problem in the filter");
    const marked = page.locator(".cm-lintRange-error");
    expect(await marked.textContent()).toBe("=");
    // The quick fix, from the diagnostic's tooltip.
    await marked.hover();
    const fix = page.locator(".cm-tooltip-lint .cm-diagnosticAction");
    expect(await fix.textContent()).toContain("==");
    await fix.click();
    await expect.poll(() => page.locator(".cm-content").textContent(), { timeout: UI_TIMEOUT_MS }).toBe('Status == "running"');
    await expect.poll(() => page.locator("#filter-status").textContent(), { timeout: UI_TIMEOUT_MS }).toContain("follow this filter live");
    // The filter with the mistake never reached the agent.
    expect(listResponses.map(({ url }) => url.searchParams.get("filter")).filter((sent) => sent?.includes(" = "))).toEqual([]);
  });

  it("lists the rows that match, as the agent's own list does", async () => {
    const expected = await listedKeys(agent.url, 'Status == "running"');
    expect(expected.length).toBeGreaterThan(0);
    await expect.poll(() => shownKeys(page), { timeout: UI_TIMEOUT_MS }).toEqual(expected);
  });

  it("shows a job registered meanwhile, through the blocking query it had waiting", async () => {
    const navigations = page.mainFrame().url();
    // The page's blocking query is parked before the write that should wake it.
    await expect.poll(() => agent.blockingQueries, { timeout: UI_TIMEOUT_MS }).toBeGreaterThan(0);
    const registered = await send(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("ui-live") }) });
    expect(registered.status, registered.text).toBe(200);
    await expect.poll(() => shownKeys(page), { timeout: UI_TIMEOUT_MS }).toContain("default/ui-live");
    expect(await shownKeys(page)).toEqual(await listedKeys(agent.url, 'Status == "running"'));
    // The rows came from a blocking query (an index and a wait), not from a reload.
    const delivered = listResponses.find(({ body }) => body.includes('"ui-live"'));
    expect(Number(delivered?.url.searchParams.get("index"))).toBeGreaterThan(0);
    expect(delivered?.url.searchParams.get("wait")).toBe("60s");
    expect(delivered?.url.searchParams.get("filter")).toBe('Status == "running"');
    expect(page.mainFrame().url()).toBe(navigations);
  });

  it("explains why a clicked row matches", async () => {
    await page.locator('tr[data-key="default/web"]').click();
    const verdict = page.locator("#explain .verdict");
    await expect.poll(() => verdict.textContent(), { timeout: UI_TIMEOUT_MS }).toBe("The job default/web matches");
    const clause = page.locator("#explain li.clause").first();
    expect(await clause.getAttribute("class")).toBe("clause true decided");
    expect(await clause.locator(".clause-text").textContent()).toBe('Status == "running"');
    expect(await clause.locator(".found").textContent()).toBe('Status is "running"');
  });

  it("lists every row with show all, marks those that do not match, and explains one", async () => {
    await typeFilter(page, 'Status == "running" and Type == "service"');
    await page.locator("#show-all").check();
    const report = page.locator('tr[data-key="default/report"]');
    await expect.poll(() => report.getAttribute("class"), { timeout: UI_TIMEOUT_MS }).toBe("no-match");
    expect(await report.locator("td.mark").textContent()).toBe("✗");
    const matching = await listedKeys(agent.url, 'Status == "running" and Type == "service"');
    const marked = await page.locator("#rows tbody tr.match").evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.key));
    expect(marked).toEqual(matching);
    expect(await shownKeys(page)).toEqual(await listedKeys(agent.url, ""));

    await report.click();
    await expect.poll(() => page.locator("#explain .verdict").textContent(), { timeout: UI_TIMEOUT_MS }).toBe("The job default/report does not match");
    const clauses = page.locator("#explain li.clause");
    // The and, then its operands: the first true, the second false and deciding.
    expect(await clauses.nth(1).getAttribute("class")).toBe("clause true");
    expect(await clauses.nth(2).getAttribute("class")).toBe("clause false decided");
    expect(await clauses.nth(2).locator(".found").textContent()).toBe('Type is "batch"');

    const shot = join(shots, "ui.png");
    await page.screenshot({ path: shot });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  });

  it("asks for a token when ACLs are on, says when the agent does not know it, keeps it in the tab, and lists what the token may read", async () => {
    const acl = await browser.context.newPage();
    watchProblems(acl, problems);
    await acl.goto(`${guarded.url}/ui/?namespace=*`);
    await acl.locator("#token-dialog").waitFor({ state: "visible" });
    expect(await acl.locator("#token-reason").textContent()).toContain("Without a token, the agent's ACLs refuse this");
    expect(await acl.locator("#rows-error").textContent()).toMatch(/^403 Permission denied/);

    // A mistyped token: the list answers the reference's bare "Permission denied", and the page
    // says that the agent does not know the token rather than that it lacks list-jobs.
    await acl.locator("#token-input").fill("00000000-0000-4000-8000-000000000000");
    await acl.locator("#token-save").click();
    await expect.poll(() => acl.locator("#token-reason").textContent(), { timeout: UI_TIMEOUT_MS }).toContain("The agent does not know this token (ACL token not found)");
    expect(await acl.locator("#token-dialog").isVisible()).toBe(true);
    expect(await acl.locator("#rows-error").textContent()).toBe("403 Permission denied: the agent does not know this token (ACL token not found).");

    await acl.locator("#token-input").fill(DEFAULT_READER);
    await acl.locator("#token-save").click();
    await acl.locator("#token-dialog").waitFor({ state: "hidden" });
    expect(await acl.evaluate((key) => sessionStorage.getItem(key), TOKEN_STORAGE_KEY)).toBe(DEFAULT_READER);

    await typeFilter(acl, 'Type == "service"');
    const expected = await listedKeys(guarded.url, 'Type == "service"', "*", DEFAULT_READER);
    // Only the namespace the token may read, though the demo has services in prod too.
    expect(expected.every((key) => key.startsWith("default/"))).toBe(true);
    expect((await listedKeys(guarded.url, 'Type == "service"', "*", ROOT)).some((key) => key.startsWith("prod/"))).toBe(true);
    await expect.poll(() => shownKeys(acl), { timeout: UI_TIMEOUT_MS }).toEqual(expected);
    expect(await acl.locator("#rows-error").isHidden()).toBe(true);
    await acl.close();
  });

  it("marks a double-quoted value in JSON-pointer form as a warning, sends the filter, and writes it in backticks from the editor", async () => {
    const trap = await browser.context.newPage();
    watchProblems(trap, problems);
    await trap.goto(`${agent.url}/ui/`);
    await typeFilter(trap, 'Name == "/web-api"');
    const marked = trap.locator(".cm-lintRange-warning");
    await expect.poll(() => marked.textContent(), { timeout: UI_TIMEOUT_MS }).toBe('"/web-api"');
    // A warning does not hold the filter back, as an error does.
    await expect.poll(() => trap.locator("#filter-status").textContent(), { timeout: UI_TIMEOUT_MS }).toContain("follow this filter live");
    await marked.hover();
    const fix = trap.locator(".cm-tooltip-lint .cm-diagnosticAction").first();
    expect(await fix.textContent()).toContain("as written");
    await fix.click();
    await expect.poll(() => trap.locator(".cm-content").textContent(), { timeout: UI_TIMEOUT_MS }).toBe("Name == `/web-api`");
    await expect.poll(() => trap.locator(".cm-lintRange-warning").count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
    await trap.close();
  });

  it("ran without a script error or a Content-Security-Policy refusal", () => {
    expect(problems).toEqual([]);
  });
});
