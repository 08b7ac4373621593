import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { complete, MAX_VALUE_COMPLETIONS, parse, schemas, type CompleteOptions, type Completion } from "../../src/index.js";
import { completeOrThrow } from "../../src/editor/complete.js";
import { sourceArb } from "../support/arbitraries.js";

const samples = [
  { ID: "web", Status: "running", Type: "service", Stop: false, Meta: { owner: "team-a", "web-api": "yes" }, Datacenters: ["dc1", "dc2"], TaskGroups: [{ Name: "g", Count: 3 }] },
  { ID: "api", Status: "pending", Type: "batch", Stop: false, Meta: { owner: "team-b" }, Datacenters: ["dc1"], TaskGroups: [] },
];
const job: CompleteOptions = { schema: schemas.job, samples };

/** Completes at the end of `source`, or at the `|` in it. */
function at(source: string, options: CompleteOptions = {}): Completion[] {
  const cursor = source.indexOf("|");
  return cursor < 0 ? complete(source, source.length, options) : complete(source.replace("|", ""), cursor, options);
}
const labels = (completions: Completion[]) => completions.map((c) => c.label);
const texts = (completions: Completion[]) => completions.map((c) => c.text);

/** Applies a completion: the edited source. */
function apply(source: string, completion: Completion): string {
  return source.slice(0, completion.range.start) + completion.text + source.slice(completion.range.end);
}

describe("complete: where an expression starts", () => {
  it("offers the schema's fields in its order, with their types, then not, any and all", () => {
    const completions = at("", { schema: schemas.job });
    expect(completions.slice(0, 3)).toEqual([
      { label: "ID", kind: "field", text: "ID", range: { start: 0, end: 0 }, detail: "string", documentation: "its ID, unique in its namespace" },
      { label: "ParentID", kind: "field", text: "ParentID", range: { start: 0, end: 0 }, detail: "string", documentation: "the periodic or parameterized job that made it" },
      { label: "Name", kind: "field", text: "Name", range: { start: 0, end: 0 }, detail: "string", documentation: "its name (its ID by default)" },
    ]);
    expect(completions.find((c) => c.label === "Datacenters")?.detail).toBe("list of string");
    expect(completions.find((c) => c.label === "Meta")?.detail).toBe("map of string");
    expect(completions.filter((c) => c.kind === "keyword").map((c) => c.label)).toEqual(["not", "any", "all"]);
    expect(completions.filter((c) => c.kind === "field")).toHaveLength(Object.keys(schemas.job.fields).length);
  });

  it("filters by the word typed (any case) and replaces the whole word", () => {
    expect(at("sta", job).map((c) => [c.label, c.range])).toEqual([
      ["Status", { start: 0, end: 3 }],
      ["StatusDescription", { start: 0, end: 3 }],
      ["Stable", { start: 0, end: 3 }],
    ]);
    // In the middle of a word, the whole word is replaced.
    const [status] = at("Sta|tu == 1", job);
    expect(status!.range).toEqual({ start: 0, end: 5 });
    expect(apply("Statu == 1", status!)).toBe("Status == 1");
  });

  it("offers the keys of sample objects as fields without a schema, and only keywords with neither", () => {
    expect(labels(at("", { samples })).slice(0, 4)).toEqual(["ID", "Status", "Type", "Stop"]);
    expect(labels(at(""))).toEqual(["not", "any", "all"]);
    expect(labels(at("n"))).toEqual(["not"]);
  });

  it("offers fields and keywords after and, or, not and (", () => {
    for (const source of ['Stop == true and ', 'Stop == true or ', "not ", "("]) {
      expect(labels(at(`${source}Ty`, job)), source).toEqual(["Type"]);
    }
    expect(labels(at("Stop == true and n", job))).toEqual(["Name", "Namespace", "NodePool", "NomadTokenID", "not"]);
  });

  it("offers only fields after in, and only lists and maps after any or all", () => {
    expect(at('"dc1" in ', job).every((c) => c.kind === "field")).toBe(true);
    expect(at("any ", job).map((c) => [c.label, c.detail])).toEqual([
      ["Datacenters", "list of string"],
      ["Meta", "map of string"],
      ["Constraints", "any"],
      ["Affinities", "any"],
      ["Spreads", "any"],
      ["TaskGroups", "list of structs.TaskGroup"],
      ["Payload", "any"],
      ["UI", "any"],
      ["VersionTag", "any"],
    ]);
    expect(labels(at("all M", job))).toEqual(["Meta"]);
  });
});

describe("complete: operators", () => {
  it("offers every operator after an operand", () => {
    expect(labels(at("Status ", job))).toEqual(["==", "!=", "in", "not in", "contains", "not contains", "matches", "not matches", "is empty", "is not empty", "is nil", "is not nil"]);
    expect(at("Status ", job)[0]).toMatchObject({ kind: "operator", range: { start: 7, end: 7 }, detail: "equal" });
  });

  it("completes a word of an operator", () => {
    expect(labels(at("Status is ", job))).toEqual(["empty", "not empty", "nil", "not nil"]);
    expect(labels(at("Status is not ", job))).toEqual(["empty", "nil"]);
    expect(labels(at("Status not ", job))).toEqual(["in", "contains", "matches"]);
    expect(labels(at("Status is e", job))).toEqual(["empty"]);
    expect(labels(at("Status no", job))).toEqual(["not in", "not contains", "not matches"]);
    const [contains] = at("Tags con", job);
    expect(apply("Tags con", contains!)).toBe("Tags contains");
  });

  it("offers and and or after a complete clause, also inside parentheses", () => {
    expect(labels(at('Status == "running" ', job))).toEqual(["and", "or"]);
    expect(labels(at('(Status == "running" ', job))).toEqual(["and", "or"]);
    expect(labels(at('Status == "running" a', job))).toEqual(["and"]);
    expect(at('Status == "running" a', job)[0]!.range).toEqual({ start: 20, end: 21 });
  });
});

describe("complete: values", () => {
  it("offers the values seen in the samples after == and !=, quoted", () => {
    expect(at("Status == ", job).map((c) => [c.kind, c.label, c.text])).toEqual([
      ["value", "running", '"running"'],
      ["value", "pending", '"pending"'],
    ]);
    expect(texts(at("Type != ", job))).toEqual(['"service"', '"batch"']);
  });

  it("completes inside a string, replacing the whole string", () => {
    const [running] = at('Status == "ru', job);
    expect(running).toMatchObject({ text: '"running"', range: { start: 10, end: 13 } });
    expect(apply('Status == "ru', running!)).toBe('Status == "running"');
    const [inside] = at('Status == "ru|x" and Stop == false', job);
    expect(apply('Status == "rux" and Stop == false', inside!)).toBe('Status == "running" and Stop == false');
  });

  it("offers the elements of a list after contains, true and false for a boolean, nothing after matches", () => {
    expect(texts(at("Datacenters contains ", job))).toEqual(['"dc1"', '"dc2"']);
    expect(texts(at("Stop == ", { schema: schemas.job }))).toEqual(["true", "false"]);
    expect(texts(at("Stop == ", job))).toEqual(["false"]);
    expect(at("Name matches ", job)).toEqual([]);
  });

  it(`offers at most ${MAX_VALUE_COMPLETIONS} values`, () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ ID: `job-${i}` }));
    expect(at("ID == ", { samples: many })).toHaveLength(MAX_VALUE_COMPLETIONS);
  });
});

describe("complete: paths", () => {
  it("documents each field with the reference's description of it, and a field of a schema file with its own docs", () => {
    const priority = at("Pri", job).find((completion) => completion.label === "Priority");
    expect(priority?.documentation).toMatch(/priority/i);
    const own = { kind: "object", fields: { Owner: "string", Size: "int" }, docs: { Owner: "who runs it" } } as const;
    expect(at("", { schema: own }).filter((completion) => completion.kind === "field").map((completion) => [completion.label, completion.documentation])).toEqual([
      ["Owner", "who runs it"],
      ["Size", undefined],
    ]);
  });

  it("offers the fields of a nested object after a dot", () => {
    expect(at("JobSummary.", job).slice(0, 2)).toEqual([
      { label: "JobID", kind: "field", text: "JobID", range: { start: 11, end: 11 }, detail: "string", documentation: "the job's ID" },
      { label: "Namespace", kind: "field", text: "Namespace", range: { start: 11, end: 11 }, detail: "string", documentation: "the job's namespace" },
    ]);
    expect(labels(at("JobSummary.Children.R", job))).toEqual(["Running"]);
  });

  it("offers the keys of a map seen in the samples, with the bracket form for keys that are not names", () => {
    const completions = at("Meta.", job);
    expect(completions.map((c) => [c.kind, c.label, c.text, c.range])).toEqual([
      ["key", "owner", "owner", { start: 5, end: 5 }],
      ["key", "web-api", '["web-api"]', { start: 4, end: 5 }],
    ]);
    expect(apply("Meta.", completions[1]!)).toBe('Meta["web-api"]');
    expect(labels(at("Meta.ow", job))).toEqual(["owner"]);
  });

  it("offers quoted keys after [ and inside [\"…, closing the bracket when needed", () => {
    expect(texts(at("Meta[", job))).toEqual(['"owner"]', '"web-api"]']);
    const [owner] = at('Meta["ow', job);
    expect(apply('Meta["ow', owner!)).toBe('Meta["owner"]');
    const [closed] = at('Meta["ow|"] == "x"', job);
    expect(apply('Meta["ow"] == "x"', closed!)).toBe('Meta["owner"] == "x"');
  });

  it("offers the names bound by any and all, and the fields of their elements", () => {
    expect(at("any TaskGroups ", job).map((c) => c.label)).toEqual(["as"]);
    const body = at("any TaskGroups as g { ", { samples });
    expect(body.filter((c) => c.kind === "variable")).toEqual([{ label: "g", kind: "variable", text: "g", range: { start: 22, end: 22 }, detail: "element" }]);
    expect(labels(at("any TaskGroups as g { g.", { samples }))).toEqual(["Name", "Count"]);
    expect(labels(at("any Meta as k, v { v", job)).filter((label) => label === "v")).toEqual(["v"]);
    // Outside the body the name is gone.
    expect(at("(any TaskGroups as g { g.Count == 1 }) or ", { samples }).some((c) => c.label === "g")).toBe(false);
  });
});

describe("complete: robustness", () => {
  it("clamps an offset outside the source", () => {
    expect(labels(at("Status ", job))).toEqual(labels(complete("Status ", 99, job)));
    expect(labels(complete("Sta", -5, job))).toEqual(labels(at("", job)));
  });

  it("offers nothing with the cursor inside an operator, where any insertion would split it", () => {
    expect(at('Status =|= "x"', job)).toEqual([]);
    expect(at('Status !|= "x"', job)).toEqual([]);
    expect(labels(at('Status |== "x"', job))).toContain("==");
  });

  it("never throws (without complete's safety net), and every completion replaces a range inside the source", () => {
    fc.assert(
      fc.property(sourceArb, fc.nat(), (source, n) => {
        const offset = n % (source.length + 1);
        for (const completion of completeOrThrow(source, offset, job)) {
          expect(completion.range.start).toBeLessThanOrEqual(offset);
          expect(completion.range.end).toBeGreaterThanOrEqual(offset);
          expect(completion.range.end).toBeLessThanOrEqual(source.length);
          expect(completion.text.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("completes a clause into a valid filter: field, operator, value", () => {
    let source = "St";
    source = apply(source, at(source, job).find((c) => c.label === "Status")!);
    source += " ";
    source = apply(source, at(source, job).find((c) => c.label === "==")!);
    source += " ";
    source = apply(source, at(source, job).find((c) => c.label === "running")!);
    expect(source).toBe('Status == "running"');
    expect(() => parse(source)).not.toThrow();
  });
});
