/**
 * What the page's Content-Security-Policy refuses, as console errors: Chromium reports a refusal
 * (an inline style, an `eval`) to the page's `securitypolicyviolation` event and its own log,
 * which playwright's console events do not carry. Added to a page before it loads, this makes
 * the page log each one, so a test that collects console errors sees them.
 */
import type { Page } from "playwright-core";

/** Makes `page` log each refusal of its Content-Security-Policy as a console error (call before `goto`). */
export async function logCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`Content-Security-Policy refused ${event.violatedDirective}: ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber} ${event.sample}`);
    });
  });
}
