/**
 * The schedule of the language server's checks, on its own: one check a pause, none for a closed
 * document, and one check a turn of the event loop when several fall due at once.
 */
import { describe, expect, it } from "vitest";
import { DiagnosticsSchedule } from "../../src/lsp/schedule.js";

/** Short enough for a test, long enough that the changes of one loop below fall within it. */
const DELAY_MS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A schedule that records the documents it checks, and resolves `done` after `expected` checks. */
function recording(expected: number) {
  const checked: string[] = [];
  let finish: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const schedule = new DiagnosticsSchedule((uri) => {
    checked.push(uri);
    if (checked.length === expected) finish();
  }, DELAY_MS);
  return { schedule, checked, done };
}

describe("DiagnosticsSchedule", () => {
  it("checks a document changed 300 times in a row once, and not before the delay", async () => {
    const { schedule, checked, done } = recording(1);
    for (let i = 0; i < 300; i++) schedule.schedule("a");
    await new Promise(setImmediate);
    expect(checked).toEqual([]);
    await done;
    await sleep(3 * DELAY_MS);
    expect(checked).toEqual(["a"]);
  });

  it("waits the delay again after each change", async () => {
    const { schedule, checked, done } = recording(1);
    const start = performance.now();
    schedule.schedule("a");
    await sleep(DELAY_MS / 2);
    schedule.schedule("a");
    await done;
    expect(performance.now() - start).toBeGreaterThanOrEqual(DELAY_MS * 1.5 - 1);
    expect(checked).toEqual(["a"]);
  });

  it("does not check a document cancelled before it is due", async () => {
    const { schedule, checked, done } = recording(1);
    schedule.schedule("closed");
    schedule.schedule("open");
    schedule.cancel("closed");
    await done;
    await sleep(3 * DELAY_MS);
    expect(checked).toEqual(["open"]);
  });

  it("checks documents that fall due together one a turn of the event loop, in order", async () => {
    const log: string[] = [];
    let finish: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const schedule = new DiagnosticsSchedule((uri) => {
      log.push(uri);
      if (uri === "c") finish();
    }, DELAY_MS);
    for (const uri of ["a", "b", "c"]) schedule.schedule(uri);
    // Stands for the connection, which reads one message a turn.
    let ticking = true;
    const tick = () => {
      log.push("turn");
      if (ticking) setImmediate(tick);
    };
    await sleep(DELAY_MS / 2);
    tick();
    await done;
    ticking = false;
    const checks = log.filter((entry) => entry !== "turn");
    expect(checks).toEqual(["a", "b", "c"]);
    // Between two checks the loop turned: a request read meanwhile is answered before the next check.
    expect(log.slice(log.indexOf("a"), log.indexOf("c") + 1).join(" ")).toMatch(/^a( turn)+ b( turn)+ c$/);
  });
});
