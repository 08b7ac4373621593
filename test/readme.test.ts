import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileFilter } from "../src/index.js";
import { installCommand, OPTIONAL_PACKAGES, type OptionalPart } from "../src/optional-packages.js";

const readme = readFileSync("README.md", "utf8");
const section = readme.slice(readme.indexOf("## The language by example"), readme.indexOf("### Selectors"));

/** The example job of the README, with SubmitTime exact. */
const job = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!.replace(/"SubmitTime": (\d+)/, '"SubmitTime": "$1"'));
job.SubmitTime = BigInt(job.SubmitTime);

/** Rows of the operator table: [operator, matching filter, non-matching filter]. */
const rows = section
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| Operator") && !line.startsWith("|---"))
  .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| /, "").trim()))
  .map(([operator, matching, failing]) => [operator!, /`([^`]+)`/.exec(matching!)![1]!, /`([^`]+)`/.exec(failing!)![1]!] as const);

describe("the README's operator table", () => {
  it("has a row for every operator", () => {
    expect(rows.length).toBeGreaterThanOrEqual(17);
  });

  it.each(rows)("%s: %s matches the example job", (_operator, matching) => {
    expect(compileFilter(matching).test(job)).toBe(true);
  });

  it.each(rows)("%s: %s does not match it", (_operator, _matching, failing) => {
    expect(compileFilter(failing).test(job)).toBe(false);
  });
});

describe("the README's cost model", () => {
  const model = readme.slice(readme.indexOf("## Cost model"), readme.indexOf("## The mini-agent"));
  const claims = [...model.matchAll(/compileFilter\('([^']+)'\)\.(cost\(job\)|worstCaseCost\(\{ length: (\d+), textLength: (\d+) \}\));\s*\/\/ (\d+)/g)];

  it("gives figures for the example job", () => {
    expect(claims.length).toBeGreaterThanOrEqual(3);
  });

  it.each(claims.map((claim) => [claim[1]!, claim[2]!, claim[3], claim[4], Number(claim[5])] as const))("%s: %s is %s", (source, call, length, textLength, units) => {
    const filter = compileFilter(source);
    expect(call.startsWith("cost") ? filter.cost(job) : filter.worstCaseCost({ length: Number(length), textLength: Number(textLength) })).toBe(units);
  });
});

describe("the install commands the docs give", () => {
  const parts = Object.keys(OPTIONAL_PACKAGES) as OptionalPart[];
  const table = readme.slice(readme.indexOf("| To use | Install beside bexpr |"));
  const installRows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);

  it("lists, in the README, one row per optional part with the command bexpr itself names when that part is missing", () => {
    const commands = installRows.map((row) => /`(npm install [^`]+)`/.exec(row)?.[1]).filter((command) => command !== undefined);
    expect(commands).toEqual(parts.map((part) => installCommand([part])));
  });

  it.each(["docs/editors.md", "editors/vscode/README.md"])("gives, in %s, the language server's packages as bexpr names them", (path) => {
    const text = readFileSync(path, "utf8").replace(/\n/g, " ");
    const packages = installCommand(["the language server"]).replace(/^npm install /, "");
    expect(text).toContain(`npm install -g ./bexpr-0.1.0.tgz ${packages}`);
  });
});

describe("the README's count of the reference's client tests ported to test/nomad-api/", () => {
  // The tables' entries, `TestName: PORTED,` or `TestName: clientSide(…)` and the like, one a line.
  const entries = readdirSync("test/nomad-api")
    .filter((name) => name.endsWith(".test.ts"))
    .flatMap((name) => [...readFileSync(`test/nomad-api/${name}`, "utf8").matchAll(/^\s*(Test\w+): (PORTED|fails|clientSide|notServed|skipped)\b(?:\("([\w-]+)")?/gm)])
    .map(([, name, kind, reason]) => ({ name, kind: kind === "skipped" ? reason : kind }));
  const count = (kind: string) => entries.filter((entry) => entry.kind === kind).length;

  it("says how many run and why each of the others is skipped, as the tables have it", () => {
    const skipped = entries.length - count("PORTED") - count("fails");
    expect(count("PORTED")).toBeGreaterThan(100);
    const said = (text: string, pattern: RegExp) => pattern.exec(text.replace(/\s+/g, " "))?.slice(1).map(Number);
    expect(said(readme, /(\d+) of the (\d+) tests of the client's own test files/)).toEqual([count("PORTED") + count("fails"), entries.length]);
    expect(said(readme, /the other (\d+) are skipped, each named with its reason \((\d+) test the client alone, (\d+) need routes the agent does not serve, (\d+) have no body and (\d+) needs servers joined into a cluster\)/)).toEqual([
      skipped,
      count("clientSide"),
      count("notServed"),
      count("no-body"),
      count("needs-cluster"),
    ]);
    expect(said(readFileSync("docs/agent.md", "utf8"), /ports of (\d+) of the (\d+) tests/)).toEqual([count("PORTED") + count("fails"), entries.length]);
  });
});

describe("the README's first screen", () => {
  const lines = readme.split("\n");
  const firstScreen = lines.slice(0, 45).join("\n");
  /** The line of the first occurrence of `text`. */
  const lineOf = (text: string) => lines.findIndex((line) => line.includes(text));

  it("says what bexpr is, names the reference, the three kinds of users and the two commands", () => {
    for (const text of ["HashiCorp Nomad", "go-bexpr v0.1.16", "Services that embed the filter language", "Editors and web UIs", "Test suites that would otherwise need a Nomad cluster", "npm ci && npm start", "npm ci && npm test"]) {
      expect(firstScreen, text).toContain(text);
    }
  });

  it("explains the scheduler, the reference, the spec and X-Svc-* before it uses them", () => {
    const explained = lineOf('These docs call Nomad "the scheduler"');
    expect(explained).toBeGreaterThan(0);
    for (const term of ["the scheduler", "the reference", "the spec", "X-Svc-"]) {
      const used = lines.findIndex((line, at) => line.replaceAll('"the scheduler"', "").replaceAll('"the reference"', "").replaceAll('"the spec"', "").includes(term) && at !== explained);
      expect(used, term).toBeGreaterThanOrEqual(explained);
    }
  });
});
