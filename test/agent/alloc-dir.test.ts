/**
 * The simulated allocation directory as functions (`scheduler/alloc-dir.ts`), before it is read
 * over HTTP (client-fs.test.ts): paths resolved as the reference's `filepath.Join` and
 * `PathEscapesAllocDir`, scripts parsed, a log cut at a time, the cap.
 */
import { describe, expect, it } from "vitest";
import { allocDirAt, MAX_TASK_LOG_BYTES, MAX_TASK_LOG_LINES, parseLogScript, resolveAllocPath, taskLog } from "../../src/server/scheduler/alloc-dir.js";
import type { Allocation, Job } from "../../src/server/state/model.js";

const ID = "5b7d1a4e-0000-4000-8000-000000000001";

/** An allocation of one task `t` started at 10 s (and ended at `finishedMs` when given), and its job with the task's `Meta`. */
function running(meta: Record<string, string>, finishedMs: number | null = null): [Allocation, Job] {
  const alloc = { ID, Namespace: "default", JobID: "j", JobVersion: 0, TaskGroup: "g", CreateTime: 5_000_000_000n, ClientStatus: finishedMs === null ? "running" : "complete", TaskRun: { Tasks: ["t"], StartedAt: 10_000, FinishedAt: finishedMs, ExitCode: finishedMs === null ? null : 0 } } as unknown as Allocation;
  const job = { ID: "j", Version: 0, TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Meta: meta }] }] } as unknown as Job;
  return [alloc, job];
}

describe("resolving a path in the allocation directory", () => {
  it.each([
    ["/", []],
    ["", []],
    ["alloc/logs", ["alloc", "logs"]],
    ["/t/./local/../local/app.conf", ["t", "local", "app.conf"]],
    [`../${ID}/alloc`, ["alloc"]],
    ["alloc//logs/", ["alloc", "logs"]],
  ])("resolves %j to %j", (path, segments) => {
    expect(resolveAllocPath(ID, path).segments).toEqual(segments);
  });

  it.each(["..", "../..", "alloc/../../x", "../other-alloc/alloc", "/../../../etc/passwd"])("refuses %j: it escapes the directory", (path) => {
    expect(() => resolveAllocPath(ID, path)).toThrow("Path escapes the alloc directory");
  });
});

describe("a task's scripted log", () => {
  it.each([
    ["a\nb", [0, 0], "a\nb\n"],
    ["a\n@2s b\nc\n@1s d", [0, 2000, 2000, 2000], "a\nb\nc\nd\n"],
    ["@1m30s late", [90_000], "late\n"],
    ["@soon x", [0], "@soon x\n"],
    ["", [], ""],
  ])("parses %j: times %j, bytes %j", (script, times, bytes) => {
    const parsed = parseLogScript(script);
    expect([...parsed.atMs]).toEqual(times);
    expect(parsed.bytes.toString("utf8")).toBe(bytes);
  });

  it.each([
    [10_000, "one\n", 15_000],
    [14_999, "one\n", 15_000],
    [15_000, "one\ntwo\n", 40_000],
    [100_000, "one\ntwo\nthree\n", undefined],
  ])("at %i ms holds %j, next growing at %j", (nowMs, content, nextMs) => {
    const [alloc, job] = running({ "bexpr.stdout": "one\n@5s two\n@30s three" });
    const log = taskLog(alloc, job, "t", "stdout", nowMs);
    expect([log.content.toString("utf8"), log.nextMs]).toEqual([content, nextMs]);
  });

  it("writes nothing after the task ended", () => {
    const [alloc, job] = running({ "bexpr.stdout": "one\n@5s two\n@30s three" }, 20_000);
    const log = taskLog(alloc, job, "t", "stdout", 100_000);
    expect([log.content.toString("utf8"), log.nextMs, log.modMs]).toEqual(["one\ntwo\n", undefined, 15_000]);
  });

  it(`keeps at most ${MAX_TASK_LOG_BYTES} bytes and ${MAX_TASK_LOG_LINES} lines, whatever the script's size`, () => {
    const parsed = parseLogScript("é".repeat(3 * MAX_TASK_LOG_BYTES));
    expect(parsed.bytes.length).toBeLessThanOrEqual(MAX_TASK_LOG_BYTES);
    expect(parsed.bytes.length).toBeGreaterThan(MAX_TASK_LOG_BYTES - 2);
    const many = parseLogScript("\n".repeat(4 * MAX_TASK_LOG_BYTES));
    expect([many.bytes.length, many.atMs.length]).toEqual([MAX_TASK_LOG_LINES, MAX_TASK_LOG_LINES]);
  });
});

describe("the directory's files", () => {
  it("writes a task's scripted files under local/, secrets/ and tmp/ only, when it starts", () => {
    const [alloc, job] = running({ "bexpr.file.local/a/b.txt": "x", "bexpr.file.secrets/k": "s", "bexpr.file.alloc/data/x": "no", "bexpr.file.local/../../x": "no", "bexpr.file.top": "no" });
    const paths = [...allocDirAt(alloc, job, 20_000).keys()].filter((path) => path.startsWith("t/"));
    expect(paths.sort()).toEqual(["t/local", "t/local/a", "t/local/a/b.txt", "t/secrets", "t/secrets/k", "t/tmp"]);
  });
});
