/**
 * `bexpr eval` and `bexpr explain` in pipes, as a user runs them: the built command, real pipes,
 * a closed reader, a full disk, a terminal, and an input of realistic jobs the size of a big
 * `/v1/jobs` dump, read in constant memory.
 */
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobListItem } from "../../bench/data.js";
import { MAX_JSON_VALUE_LENGTH } from "../../src/cli/json-stream.js";
import { stringifyJson } from "../../src/json.js";

const directory = mkdtempSync(join(tmpdir(), "bexpr-stream-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const CLI = resolve("dist/cli.js");
/** Each test runs Node over tens of megabytes; a loaded two-core machine takes seconds. */
const SLOW = { timeout: 180_000 };

/** About 38 MB of job list items as JSON lines (49,000 jobs), and the same jobs as one JSON array. */
const INPUT_BYTES = 38_000_000;
let jsonLines: string;
let jsonArray: string;
beforeAll(() => {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < INPUT_BYTES; i++) {
    const line = stringifyJson(jobListItem(i));
    lines.push(line);
    size += line.length + 1;
  }
  jsonLines = join(directory, "jobs.jsonl");
  writeFileSync(jsonLines, `${lines.join("\n")}\n`);
  jsonArray = join(directory, "jobs.json");
  writeFileSync(jsonArray, `[${lines.join(",\n")}]\n`);
  // Making 76 MB of JSON takes a few seconds alone, many times that on a loaded machine.
}, SLOW.timeout);

/** Runs `script` in bash; resolves with its exit status and what it printed. */
function bash(script: string, args: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("bash", ["-c", script, "bash", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}

describe.concurrent("a closed pipe", SLOW, () => {
  it.each([
    ["eval", 141],
    ["explain", 141],
    // The count is printed at the end, after which nothing more is written.
    ["eval --count", 0],
  ])("ends bexpr %s quietly, with status %i as grep, once head has read its line", async (command, status) => {
    // `${PIPESTATUS[0]}` is bexpr's status; head's output is the first line and nothing else.
    const run = await bash(`node "$1" ${command} 'Status == "running"' "$2" | head -1; echo "bexpr exited \${PIPESTATUS[0]}" >&2`, [CLI, jsonLines]);
    expect(run.stderr).toBe(`bexpr exited ${status}\n`);
    expect(run.stdout.split("\n")).toHaveLength(2);
  });

  it("ends quietly when the reader closes the pipe itself, for an array too", async () => {
    const child = spawn(process.execPath, [CLI, "eval", 'Status == "running"', jsonArray], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const first = await new Promise<string>((done) => child.stdout.once("data", (chunk: Buffer) => done(chunk.toString())));
    child.stdout.destroy();
    const [code, signal] = await new Promise<[number | null, string | null]>((done) => child.on("close", (c, s) => done([c, s])));
    expect(first.startsWith("[\n    {\n")).toBe(true);
    expect([code, signal, stderr]).toEqual([141, null, ""]);
  });

  it("says in one line that the output cannot be written to a full disk, exit status 1", async () => {
    const run = await bash(`node "$1" eval 'Status == "running"' "$2" > /dev/full`, [CLI, jsonLines]);
    expect(run).toEqual({ code: 1, stdout: "", stderr: "bexpr: cannot write the output: ENOSPC: no space left on device, write\n" });
  });
});

/** The peak resident memory (KiB) of `bexpr args…`, read by the process itself as it exits. */
function peakMemory(args: readonly string[]): number {
  const report = join(directory, `rss-${Math.random().toString(36).slice(2)}`);
  const wrapper = `import { writeFileSync } from "node:fs";
process.on("exit", () => writeFileSync(${JSON.stringify(report)}, String(process.resourceUsage().maxRSS)));
await import(${JSON.stringify(pathToFileURL(CLI).href)});`;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", wrapper, "--", "bexpr", ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  expect(result.status, result.stderr).toBe(0);
  return Number(readFileSync(report, "utf8"));
}

describe("reading a big input", SLOW, () => {
  // Read whole, 38 MB of jobs took 200-300 MB more than a run on one value, 350-670 MB on a
  // slower machine; streamed, 60-70 MB more (the garbage of the values read, before the
  // collector takes it), the same for 150 MB. The bound leaves room for other Node versions.
  const BOUND_KIB = 120 * 1024;

  it.each([
    ["eval", "JSON lines", () => jsonLines],
    ["explain", "JSON lines", () => jsonLines],
    ["eval", "a JSON array", () => jsonArray],
    ["explain", "a JSON array", () => jsonArray],
  ])("bexpr %s reads %s in constant memory", (command, _form, input) => {
    const one = join(directory, "one.json");
    writeFileSync(one, `${stringifyJson(jobListItem(0))}\n`);
    const filter = 'Status == "running" and Meta.tier == "gold"';
    const baseline = peakMemory([command, filter, one]);
    const big = peakMemory([command, filter, input()]);
    expect(big - baseline).toBeLessThan(BOUND_KIB);
  });
});

describe("reading one long value", SLOW, () => {
  const MiB = 2 ** 20;

  // Read a character at a time (V8 kept chains of one-character pieces, about 32 bytes a
  // character), a line of 32 MiB took 1,150 MB more; now its text, its flat copy and its value,
  // about three times its size (3.4 to 3.6 here, for 16 to 64 MiB).
  it.each([
    ["integers that fit a double", "1717000000"],
    ["an integer beyond 2^53", "1717000000123456789"],
  ])("bexpr eval reads a line of 32 MiB with %s in a few times its size", (_name, time) => {
    const one = join(directory, "one-job.json");
    writeFileSync(one, `{"ID":"x","SubmitTime":${time},"Meta":{"blob":"x"}}\n`);
    const long = join(directory, "long-line.json");
    writeFileSync(long, `{"ID":"x","SubmitTime":${time},"Meta":{"blob":"${"x".repeat(32 * MiB)}"}}\n`);
    const baseline = peakMemory(["eval", "--count", 'ID == "x"', one]);
    const big = peakMemory(["eval", "--count", 'ID == "x"', long]);
    expect((big - baseline) * 1024).toBeLessThan(5 * 32 * MiB);
  });

  it(`refuses a line over ${MAX_JSON_VALUE_LENGTH / MiB} MiB in one line naming the bound, exit status 1, as it arrives`, async () => {
    // The real bound, sent through a pipe: 257 MiB on one line, then more (1 GB ended in V8's
    // "Invalid string length" and a stack trace; 128 MiB ran out of a 4 GB heap). A heap of 1 GB
    // is room enough for the text held before the refusal.
    const child = spawn(process.execPath, ["--max-old-space-size=1024", CLI, "eval", "--count", 'a == ""'], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((done) => child.on("close", done));
    // The command stops reading once it refuses: the rest of the input goes nowhere.
    child.stdin.on("error", () => {});
    const piece = Buffer.alloc(MiB, "x");
    child.stdin.write('{"a":"');
    for (let k = 0; k < MAX_JSON_VALUE_LENGTH / MiB + 64 && child.exitCode === null && child.stdin.writable; k++) {
      if (!child.stdin.write(piece)) await new Promise((drained) => child.stdin.once("drain", drained).once("close", drained));
    }
    child.stdin.end('"}\n');
    expect(await closed).toBe(1);
    expect(stderr).toBe(`bexpr: stdin: line 1 is longer than ${MAX_JSON_VALUE_LENGTH / MiB} MiB, the most bexpr reads as one JSON value\n`);
  });
});

describe("on a terminal", SLOW, () => {
  it("shows the progress on stderr once the input takes more than a second, and clears it", async (context) => {
    // `script` runs the command on a pseudo-terminal (util-linux); the input is a FIFO fed in two
    // parts a second and a half apart, so the run takes that long on any machine.
    if (spawnSync("script", ["--version"]).error !== undefined) context.skip("script (util-linux) is not installed");
    const fifo = join(directory, "slow.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const run = bash(`script -qec "node '$1' eval --count 'Type == \\"batch\\"' '$2'" /dev/null`, [CLI, fifo]);
    const writer = createWriteStream(fifo);
    // The FIFO opens once bexpr opens it to read: the pause starts after bexpr has.
    await Promise.race([new Promise((done) => writer.once("open", done)), run.then((result) => expect.fail(`bexpr ended before reading: ${result.stdout}`))]);
    const jobs = Array.from({ length: 2_000 }, (_, i) => `${stringifyJson(jobListItem(i))}\n`);
    writer.write(jobs.slice(0, 1_000).join(""));
    await new Promise((done) => setTimeout(done, 1_500));
    writer.end(jobs.slice(1_000).join(""));
    const { code, stdout } = await run;
    expect(code).toBe(0);
    expect(stdout).toMatch(/\r\u001b\[Kbexpr eval: [\d.]+ MB read, 1,000 values, [\d,]+ matches/);
    // Cleared at the end: the count stands alone on its line.
    const batch = jobs.filter((line) => line.includes('"Type":"batch"')).length;
    expect(stdout.endsWith(`\r\u001b[K${batch}\r\n`)).toBe(true);
  });
});
