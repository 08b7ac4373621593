import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";
import { describeUnexpectedError } from "../../src/cli/terminal.js";
import { runCli } from "../support/cli.js";

const directory = mkdtempSync(join(tmpdir(), "bexpr-cli-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

const jobs = [
  { ID: "web", Status: "running", Type: "service", SubmitTime: 1_700_000_000_000_000_000_123n, Meta: { owner: "team-a" } },
  { ID: "batch", Status: "pending", Type: "batch", Meta: { owner: "team-b" } },
  { ID: "api", Status: "running", Type: "service", Meta: {} },
];
const jsonArray = `[${jobs.map((job) => JSON.stringify(job, (_key, value) => (typeof value === "bigint" ? `@${value}@` : value)).replace(/"@(\d+)@"/g, "$1")).join(",")}]`;
const jsonLines = jsonArray.slice(1, -1).replace(/},\{/g, "}\n{") + "\n";
const ESC = "\u001b[";
/** Each test starts Node processes; on a loaded two-core machine one can take seconds. */
const SLOW = { timeout: 60_000 };

describe.concurrent("bexpr check", SLOW, () => {
  it("prints ok and exits 0 for a valid filter", async () => {
    expect(await runCli(["check", 'Status == "running" and "dc1" in Datacenters'])).toEqual({ code: 0, stdout: "ok\n", stderr: "" });
  });

  it("prints every problem with a caret under its spot and a hint, and exits 1", async () => {
    const expected = [
      'error[unexpected_token] 1:19: unexpected "AND" after a complete expression',
      "    Status == running AND Priority >= 50",
      "                      ^^^",
      '    hint: keywords are lower-case: write "and", not "AND"',
      "",
      'error[unsupported_operator] 1:32: ">=" is not an operator: the filter language has no ordering comparisons',
      "    Status == running AND Priority >= 50",
      "                                   ^^",
      '    hint: use "==", "!=", "in" or "matches", or compare on the client',
      "",
      "2 errors",
      "",
    ].join("\n");
    expect(await runCli(["check", "Status == running AND Priority >= 50"])).toEqual({ code: 1, stdout: expected, stderr: "" });
  });

  it("warns at a double-quoted value in JSON-pointer form, exits 0, and --fix writes it in backticks", async () => {
    const expected = [
      'warning[pointer_literal] 1:9: "/v1/jobs" is read as a JSON pointer: this compares with the text "v1/jobs", not "/v1/jobs"',
      '    Path == "/v1/jobs"',
      "            ^^^^^^^^^^",
      '    hint: to compare with "/v1/jobs", write it in backticks: `/v1/jobs`',
      "",
      "1 warning",
      "",
    ].join("\n");
    expect(await runCli(["check", 'Path == "/v1/jobs"'])).toEqual({ code: 0, stdout: expected, stderr: "" });
    expect(await runCli(["check", "--fix", 'Path == "/v1/jobs"'])).toEqual({ code: 0, stdout: "Path == `/v1/jobs`\n", stderr: "fixed: compare with the text as written: `/v1/jobs`\n" });
    expect(await runCli(["check", "Path == `/v1/jobs`"])).toEqual({ code: 0, stdout: "ok\n", stderr: "" });
  });

  it("checks selectors against a shipped schema with --schema", async () => {
    const { code, stdout } = await runCli(["check", "--schema", "job", 'Stauts == "running"']);
    expect(code).toBe(1);
    expect(stdout).toContain('error[unknown_field] 1:1: the object has no field "Stauts"');
    expect(stdout).toContain('hint: did you mean "Status"?');
    expect((await runCli(["check", "--schema", "deployment", 'Status == "successful"'])).code).toBe(0);
  });

  it("prints the diagnostics as JSON with --json", async () => {
    const { code, stdout } = await runCli(["check", "--json", "Name == my-job"]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual([
      {
        code: "unexpected_character",
        severity: "error",
        message: 'an unquoted value cannot contain "-": "my-job" is read as "my" followed by "-"',
        span: { start: 10, end: 11 },
        line: 1,
        column: 11,
        suggestion: 'quote the value: "my-job"',
        fixes: [{ title: 'quote the value: "my-job"', edits: [{ span: { start: 8, end: 14 }, text: '"my-job"' }] }],
      },
    ]);
    expect(await runCli(["check", "--json", "a == 1"])).toMatchObject({ code: 0, stdout: "[]\n" });
  });

  it("applies the quick fixes with --fix: the fixed filter on stdout, each fix on stderr", async () => {
    expect(await runCli(["check", "--fix", "--schema", "job", 'status = "running" AND !Stop'])).toEqual({
      code: 0,
      stdout: 'Status == "running" and Stop == false\n',
      stderr: ['replace "status" with "Status"', 'replace "=" with "=="', 'replace "AND" with "and"', "write Stop == false"].map((title) => `fixed: ${title}\n`).join(""),
    });
    const json = await runCli(["check", "--fix", "--json", 'Meta.k8s-ns == "x" && x == "a'] );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ source: 'Meta["k8s-ns"] == "x" and x == "a"', applied: expect.any(Array), diagnostics: [] });
    // What no fix mends is left, and reported.
    const left = await runCli(["check", "--fix", "Status == (x"]);
    expect(left.code).toBe(1);
    expect(left.stderr).toMatch(/error\[/);
  });

  it("reads the filter from stdin with -", async () => {
    expect(await runCli(["check", "-"], { stdin: 'Status == "running"\n' })).toMatchObject({ code: 0, stdout: "ok\n" });
    const multiline = await runCli(["check", "-"], { stdin: 'Status == "running"\nand Name == my-job\n' });
    expect(multiline.stdout).toContain("error[unexpected_character] 2:15:");
  });

  it("colours only where asked: plain through a pipe, coloured with FORCE_COLOR, plain with NO_COLOR", async () => {
    expect((await runCli(["check", "a >= 1"])).stdout).not.toContain(ESC);
    const coloured = (await runCli(["check", "a >= 1"], { env: { FORCE_COLOR: "1" } })).stdout;
    expect(coloured).toContain(`${ESC}31m`);
    expect(coloured.replace(/\u001b\[\d+m/g, "")).toBe((await runCli(["check", "a >= 1"])).stdout);
    expect((await runCli(["check", "a >= 1"], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } })).stdout).not.toContain(ESC);
  });

  it("colours on a real terminal", (context) => {
    // `script` runs the command on a pseudo-terminal (util-linux).
    const probe = spawnSync("script", ["--version"]);
    if (probe.error !== undefined) context.skip("script (util-linux) is not installed");
    const result = spawnSync("script", ["-qec", `${process.execPath} dist/cli.js check 'a >= 1'`, "/dev/null"], { encoding: "utf8", env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined } });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`${ESC}31m`);
  });
});

describe.concurrent("bexpr eval", SLOW, () => {
  it("prints the matching values of a JSON array file as an array, keeping int64 values exact", async () => {
    const { code, stdout, stderr } = await runCli(["eval", 'Status == "running"', file("jobs.json", jsonArray)]);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toContain('"SubmitTime": 1700000000000000000123');
    expect(JSON.parse(stdout).map((job: { ID: string }) => job.ID)).toEqual(["web", "api"]);
    expect(stdout.startsWith("[\n    {")).toBe(true);
  });

  it("reads JSON lines from stdin and prints matching lines", async () => {
    const { code, stdout } = await runCli(["eval", 'Meta.owner == "team-b"'], { stdin: jsonLines });
    expect(code).toBe(0);
    expect(stdout).toBe('{"ID":"batch","Status":"pending","Type":"batch","Meta":{"owner":"team-b"}}\n');
    expect((await runCli(["eval", 'Type == "service"', "-"], { stdin: jsonLines })).stdout.split("\n")).toHaveLength(3);
  });

  it("counts the matches with --count, 0 included", async () => {
    expect(await runCli(["eval", "--count", 'Type == "service"', file("count.json", jsonArray)])).toMatchObject({ code: 0, stdout: "2\n" });
    expect(await runCli(["eval", "--count", 'Type == "system"'], { stdin: jsonLines })).toMatchObject({ code: 0, stdout: "0\n" });
  });

  it("filters a single JSON value, skips a byte-order mark, and takes CRLF lines and empty input", async () => {
    expect(await runCli(["eval", "--count", 'ID == "x"'], { stdin: '{\n  "ID": "x"\n}\n' })).toMatchObject({ code: 0, stdout: "1\n" });
    expect(await runCli(["eval", "--count", 'ID == "x"'], { stdin: '\uFEFF[{"ID": "x"}, {"ID": "y"}]' })).toMatchObject({ code: 0, stdout: "1\n" });
    expect(await runCli(["eval", 'ID == "y"'], { stdin: '{"ID":"x"}\r\n{"ID":"y"}\r\n' })).toMatchObject({ code: 0, stdout: '{"ID":"y"}\n' });
    expect(await runCli(["eval", "--count", 'ID == "x"'], { stdin: " \n" })).toMatchObject({ code: 0, stdout: "0\n" });
  });

  it("exits 1 naming the value's index and line when the filter fails on it", async () => {
    // Only the third value reaches the clause on a field none of them has.
    const expected = [
      'error[missing_key] the filter failed on the value at index 2 (line 3): error finding value in datum: /Score at part 0: couldn\'t find key "Score"',
      '    ID != "web" and ID != "batch" and Score == 1',
      "                                      ^^^^^^^^^^",
      "",
    ].join("\n");
    expect(await runCli(["eval", 'ID != "web" and ID != "batch" and Score == 1'], { stdin: jsonLines })).toEqual({ code: 1, stdout: "", stderr: expected });
  });

  it("closes the JSON array of the matches before a value the filter fails on, so stdout stays JSON (it left the [ open)", async () => {
    const { code, stdout, stderr } = await runCli(["eval", 'ID == "a" or Score == 1'], { stdin: '[{"ID": "a"}, {"ID": "b"}, {"ID": "a"}]' });
    expect([code, stderr]).toEqual([1, expect.stringContaining("error[missing_key] the filter failed on the value at index 1")]);
    expect(JSON.parse(stdout)).toEqual([{ ID: "a" }]);
  });

  it("checks the filter against the schema first, pointing at the mistake as check does", async () => {
    const { code, stdout, stderr } = await runCli(["eval", "--schema", "job", "Priority == high"], { stdin: jsonLines });
    expect([code, stdout]).toEqual([1, ""]);
    const check = await runCli(["check", "--schema", "job", "Priority == high"]);
    expect(check.code).toBe(1);
    // The same diagnostic, its caret under `high` (columns 13 to 16), not under the whole filter.
    expect(stderr.split("\n").slice(0, 3)).toEqual(check.stdout.split("\n").slice(0, 3));
    expect(stderr.split("\n")[2]).toBe(`${" ".repeat(4 + 12)}^^^^`);
  });

  it("takes a schema from a JSON file, as the language server does", async () => {
    const schema = file("schema.json", JSON.stringify({ kind: "object", fields: { ID: "string", Status: "string", Type: "string", Meta: { kind: "map", values: "string" } } }));
    const { code, stdout } = await runCli(["eval", "--count", "--schema", schema, 'Meta.owner == "team-a"'], { stdin: jsonLines });
    expect([code, stdout]).toEqual([0, "1\n"]);
    const misspelt = await runCli(["check", "--schema", schema, 'Stauts == "running"']);
    expect(misspelt.code).toBe(1);
    expect(misspelt.stdout).toContain("Status");
    const notSchema = await runCli(["check", "--schema", file("not-schema.json", '{"kind": "table"}'), "a == 1"]);
    expect(notSchema.code).toBe(2);
    expect(notSchema.stderr).toContain('does not hold a field schema: the schema.kind must be "array", "map" or "object", not "table"');
  });

  it("evaluates in typed mode with --schema, where a missing map key or field is a zero value", async () => {
    const { code, stdout } = await runCli(["eval", "--count", "--schema", "job", 'Meta.owner == "team-a" or Stop == true'], { stdin: jsonLines });
    expect([code, stdout]).toEqual([0, "1\n"]);
  });

  it("exits 1 with the diagnostics for an invalid filter, before reading the input", async () => {
    const { code, stdout, stderr } = await runCli(["eval", "Status = running", "/nonexistent.json"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain('error[unsupported_operator] 1:8: "=" is not an operator');
  });

  it.each([
    [["eval", "a == 1", "/nonexistent.json"], "", 1, "bexpr: cannot read /nonexistent.json: no such file"],
    [["eval", "a == 1"], '{"a": 1}\n{"a": \n', 1, "bexpr: stdin is not valid JSON lines: Object value expected after ':' at line 2, column 7"],
    [["eval", "a == 1"], '[\n  {"a": 1},\n  {"a": 2},\n]\n', 1, "bexpr: stdin is not valid JSON: Array item expected but got ']' at line 4, column 1"],
    [["eval", "a == 1"], '{\n  "a": 1\n}\n{\n  "a": 2\n}\n', 1, "at line 4, column 1; write several values one per line (JSON lines, as jq -c does)"],
    [["eval", "-", "-"], "", 2, "the filter and the input cannot both come from stdin"],
    [["eval", "--schema", "node", "a == 1"], "", 2, "--schema: cannot read"],
    [["eval", "a", "==", "1"], "", 2, 'unexpected argument "1" (quote the filter as one argument)'],
    [["eval", "--bogus", "a == 1"], "", 2, "unknown option --bogus"],
  ])("refuses %j (stdin %j) with exit status %i", async (args, stdin, status, message) => {
    const { code, stderr } = await runCli(args, { stdin });
    expect(code).toBe(status);
    expect(stderr).toContain(message);
  });
});

describe.concurrent("bexpr fmt", SLOW, () => {
  it("prints the canonical form", async () => {
    expect(await runCli(["fmt", '(Status=="running") and ((Meta["owner"] == `team-a`))'])).toEqual({ code: 0, stdout: 'Status == "running" and Meta.owner == "team-a"\n', stderr: "" });
    expect(await runCli(["fmt", "-"], { stdin: 'Name matches "^web-\\\\d+$"\n' })).toMatchObject({ code: 0, stdout: "Name matches `^web-\\d+$`\n" });
  });

  it("exits 1 with the diagnostics on stderr for an invalid filter", async () => {
    const { code, stdout, stderr } = await runCli(["fmt", "Status == "]);
    expect([code, stdout]).toEqual([1, ""]);
    expect(stderr).toContain("error[unexpected_end] 1:11:");
  });
});

describe.concurrent("bexpr sql", SLOW, () => {
  it("prints the SQL, its parameters and whether it is exact, as text or JSON", async () => {
    const { code, stdout } = await runCli(["sql", "--schema", "job", "--column", "body", "--param-offset", "2", 'Status == "running"']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    // The containment a GIN index answers, then the exact three-valued test.
    expect(lines[0]).toMatch(/^"body" @> \$5::text::jsonb AND \(.*\$3::text.*\$4::text.*\) <> 0$/);
    expect(lines.slice(1)).toEqual(['-- $3 = "Status"', '-- $4 = "running"', '-- $5 = "{\\"Status\\":\\"running\\"}"', "-- exact: the rows selected are the rows the filter accepts"]);
    const json = await runCli(["sql", "--json", 'Meta.owner matches "^a+"']);
    expect(JSON.parse(json.stdout)).toMatchObject({ params: ["Meta", "owner"], exact: false });
  });

  it("exits 1 with the diagnostics for an invalid filter, and 2 for a bad option", async () => {
    const invalid = await runCli(["sql", "Status =="]);
    expect([invalid.code, invalid.stdout]).toEqual([1, ""]);
    expect(invalid.stderr).toContain("error[unexpected_end]");
    expect((await runCli(["sql", "--param-offset", "x", "Status == 1"])).code).toBe(2);
  });
});

describe.concurrent("bexpr explain", SLOW, () => {
  it("prints why one value matches or not, as a tree", async () => {
    const { code, stdout, stderr } = await runCli(["explain", 'Status == "running" and Meta.owner == "team-b"', "-"], { stdin: JSON.stringify(jobs[2]) });
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toBe(
      [
        'no match: Status == "running" and Meta.owner == "team-b"',
        "✗ and  ← decided",
        '  ✓ Status == "running"  (Status is "running")',
        "  ✗ Meta.owner == \"team-b\"  (Meta.owner is missing)  ← decided",
        "",
      ].join("\n"),
    );
  });

  it("explains every value of JSON lines, each headed by its line, and prints JSON with --json", async () => {
    const { code, stdout } = await runCli(["explain", "--schema", "job", 'Type == "batch"'], { stdin: jsonLines });
    expect(code).toBe(0);
    // Each value is headed by its ID, its index and its line.
    expect(stdout.split("\n").filter((line) => line.startsWith('"'))).toEqual(['"web" (value 0, line 1): no match: Type == "batch"', '"batch" (value 1, line 2): match: Type == "batch"', '"api" (value 2, line 3): no match: Type == "batch"']);
    const json = await runCli(["explain", "--json", "Missing == 1", file("explain.json", jsonArray)]);
    expect(json.code).toBe(0);
    const explanations = JSON.parse(json.stdout) as { matched: boolean; error?: { code: string } }[];
    expect(explanations.map((explanation) => explanation.error?.code)).toEqual(["missing_key", "missing_key", "missing_key"]);
  });

  it("heads a value without an ID by its index, and one of an array without a line", async () => {
    const { code, stdout } = await runCli(["explain", "a == 1", file("no-ids.json", '[{"a": 1}, {"a": 2, "ID": 7}]')]);
    expect(code).toBe(0);
    expect(stdout.split("\n").filter((line) => line.startsWith("value "))).toEqual(["value 0: match: a == 1", "value 1: no match: a == 1"]);
  });

  it("colours the tree on a terminal (FORCE_COLOR here): a match and true clauses green, a miss and false clauses red", async () => {
    const { stdout } = await runCli(["explain", 'Status == "running" and Type == "batch"', file("colour.json", JSON.stringify(jobs[2]))], { env: { FORCE_COLOR: "1" } });
    expect(stdout.split("\n").slice(0, 4)).toEqual([
      `${ESC}31mno match: Status == "running" and Type == "batch"${ESC}39m`,
      `${ESC}31m✗${ESC}39m and  ← decided`,
      `  ${ESC}32m✓${ESC}39m Status == "running"  (Status is "running")`,
      `  ${ESC}31m✗${ESC}39m Type == "batch"  (Type is "service")  ← decided`,
    ]);
    expect((await runCli(["explain", "Status == 1", file("plain.json", "{}")])).stdout).not.toContain(ESC);
  });

  it("exits 1 with the diagnostics for an invalid filter, before reading the input", async () => {
    const { code, stdout, stderr } = await runCli(["explain", "Status = 1", "/nonexistent.json"]);
    expect([code, stdout]).toEqual([1, ""]);
    expect(stderr).toContain("error[unsupported_operator]");
  });
});

describe.concurrent("usage mistakes", SLOW, () => {
  it.each([
    [["eval", "--bogus", "a == 1"], "bexpr eval: unknown option --bogus", "run 'bexpr eval --help' for usage"],
    [["explain", "-z", "a == 1"], 'bexpr explain: unknown option -z (a filter that starts with "-" goes after --)', "run 'bexpr explain --help' for usage"],
    [["eval"], "bexpr eval: a filter expression is required", "run 'bexpr eval --help' for usage"],
    [["eval", "--schema"], "bexpr eval: --schema needs a value", "run 'bexpr eval --help' for usage"],
    [["eval", "--schema", "--count", "a == 1"], 'bexpr eval: --schema needs a value (write --schema=--count for one that starts with "-")', "run 'bexpr eval --help' for usage"],
    [["eval", "--count=yes", "a == 1"], "bexpr eval: --count takes no value", "run 'bexpr eval --help' for usage"],
    [["check", "--schema", "/nonexistent/node.json", "a == 1"], "bexpr check: --schema: cannot read /nonexistent/node.json: no such file", "run 'bexpr check --help' for usage"],
    [["sql", "--param-offset", "x", "a == 1"], 'bexpr sql: --param-offset must be a whole number, got "x"', "run 'bexpr sql --help' for usage"],
    [["agent", "--bogus"], "bexpr agent: unknown option --bogus", "run 'bexpr agent --help' for usage"],
    [["frobnicate"], 'bexpr: unknown command "frobnicate"', "run 'bexpr help' for the commands"],
  ])("answers %j with what is wrong and what to run, in two lines, exit status 2", async (args, wrong, run) => {
    expect(await runCli(args)).toEqual({ code: 2, stdout: "", stderr: `${wrong}\n${run}\n` });
  });

  it("names an unexpected error by its declared class and code, not the bundler's renamed class", async () => {
    const { FilterEvaluationError } = (await import(pathToFileURL(resolve("dist/index.js")).href)) as typeof import("../../src/index.js");
    const error = new FilterEvaluationError("missing_key", 'couldn\'t find key "Score"', { start: 0, end: 5 }, "Score == 1");
    const described = describeUnexpectedError(error);
    expect(described.split("\n")[0]).toBe('bexpr: unexpected error (please report it with this output): FilterEvaluationError[missing_key]: 1:1: couldn\'t find key "Score"');
    expect(described).not.toContain("_FilterEvaluationError");
  });
});

describe.concurrent("help and version everywhere", SLOW, () => {
  it.each(["check", "eval", "explain", "fmt", "sql", "agent"])(
    "bexpr %s answers --help, -h, --version and -v",
    async (command) => {
      const [help, short, version, v] = await Promise.all([["--help"], ["-h"], ["--version"], ["-v"]].map((flag) => runCli([command, ...flag])));
      expect(help!.code).toBe(0);
      expect(help!.stdout).toMatch(new RegExp(`^Usage: bexpr ${command}`));
      expect(short!.stdout).toBe(help!.stdout);
      expect(version!.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
      expect(v!.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    },
  );

  it("answers no command with its help on stderr and exit status 2 (it exited 0)", async () => {
    const { code, stdout, stderr } = await runCli([]);
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toMatch(/^Usage: bexpr <command>/);
  });

  it("prints a command's help for bexpr help COMMAND (it printed the general help), and refuses an unknown one", async () => {
    const [helped, flagged, unknown] = await Promise.all([runCli(["help", "eval"]), runCli(["eval", "--help"]), runCli(["help", "frobnicate"])]);
    expect(helped.code).toBe(0);
    expect(helped.stdout).toMatch(/^Usage: bexpr eval/);
    expect(helped.stdout).toBe(flagged.stdout);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it("lists every command in the main help", async () => {
    const { stdout } = await runCli(["help"]);
    for (const command of ["check EXPR", "eval EXPR [FILE]", "explain EXPR [FILE]", "fmt EXPR", "sql EXPR", "agent"]) expect(stdout).toContain(command);
  });
});
