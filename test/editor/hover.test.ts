import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hover, MAX_SOURCE_LENGTH, OPERATORS, schemas, validate, type HoverInfo, type HoverOptions } from "../../src/index.js";
import { hoverOrThrow } from "../../src/editor/hover.js";
import { sourceArb } from "../support/arbitraries.js";

const job: HoverOptions = { schema: schemas.job };

/** Hovers at the `|` in `source` (the character after it). */
function at(source: string, options: HoverOptions = {}): { source: string; info: HoverInfo | undefined } {
  const offset = source.indexOf("|");
  const plain = source.replace("|", "");
  return { source: plain, info: hover(plain, offset, options) };
}

/** The text a hover is about, and its contents. */
function hovered(source: string, options: HoverOptions = {}): { text: string; contents: string } | undefined {
  const { source: plain, info } = at(source, options);
  return info === undefined ? undefined : { text: plain.slice(info.range.start, info.range.end), contents: info.contents };
}

describe("hover over a selector", () => {
  it.each([
    ["|Status == \"running\"", "Status", "**`Status`**: `string`", "A field of `structs.Job`: pending, running or dead."],
    ["Sta|tus == \"running\"", "Status", "**`Status`**: `string`", "A field of `structs.Job`"],
    ["Status| == \"running\"", "Status", "**`Status`**: `string`", "A field of `structs.Job`"],
    ["\"dc1\" in Data|centers", "Datacenters", "`list of string`", "A field of `structs.Job`"],
    ["Meta is |empty", "is empty", "**`is empty`**", "operator"],
    ["Me|ta.owner == \"x\"", "Meta", "**`Meta`**: `map of string`", "A field of `structs.Job`"],
    ["Meta.ow|ner == \"x\"", "owner", "**`Meta.owner`**: `string`", "A key of the map `Meta`"],
    ["Meta|.owner == \"x\"", ".owner", "**`Meta.owner`**: `string`", ""],
    ["Meta.|owner == \"x\"", "owner", "**`Meta.owner`**: `string`", ""],
    ['Meta["web|-api"] == "x"', '["web-api"]', '**`Meta["web-api"]`**: `string`', "A key of the map `Meta`"],
    ['Meta[|"web-api"] == "x"', '["web-api"]', "`string`", ""],
    ["JobSum|mary.Children.Running == 1", "JobSummary", "**`JobSummary`**: `structs.JobSummary`", ""],
    ["JobSummary.Children.Run|ning == 1", "Running", "**`JobSummary.Children.Running`**: `int`", "A field of `structs.JobChildrenSummary`"],
    ["TaskGroups.0.Na|me == \"web\"", "Name", "**`TaskGroups.0.Name`**: `string`", "A field of `structs.TaskGroup`"],
    ["TaskGroups.|0 is empty", "0", "**`TaskGroups.0`**: `structs.TaskGroup`", "Element 0 of the list `TaskGroups`"],
    ["Con|straints is empty", "Constraints", "`any` (untyped JSON", ""],
    ['"/Meta/ow|ner" == "x"', '"/Meta/owner"', '**`"/Meta/owner"`**: `string`', 'A key of the map `"/Meta"`'],
    ["not Sto|p == true", "Stop", "**`Stop`**: `bool`", ""],
    ["an|y TaskGroups as g { g.Count == 0 }", "any", "**`any`** (keyword)", ""],
    ["any Task|Groups as g { g.Count == 0 }", "TaskGroups", "**`TaskGroups`**: `list of structs.TaskGroup`", ""],
  ])("%s: over %s", (source, text, first, second) => {
    const result = hovered(source, job);
    expect(result?.text).toBe(text);
    expect(result?.contents).toContain(first);
    expect(result?.contents).toContain(second);
  });

  it.each([
    ["Stau|ts == \"running\"", "Stauts", "**`Stauts`**: not a field of `structs.Job`"],
    ["Meta.owner.x|y == \"a\"", "xy", "**`Meta.owner.xy`**: not a field: `Meta.owner` holds `string`, which has no fields"],
    ["Foo.B|ar == 1", "Bar", "**`Foo.Bar`**: unknown, as `Foo` is not a field of `structs.Job`"],
    ["TaskGroups.Na|me == \"web\"", "Name", "not a field: `TaskGroups` is a `list of structs.TaskGroup`"],
    ["JobSummary.Children.Lo|st == 1", "Lost", "not a field of `structs.JobChildrenSummary`"],
    // Names of Object.prototype's members are no fields either.
    ["valueO|f == 1", "valueOf", "**`valueOf`**: not a field of `structs.Job`"],
    ["Multiregion.constr|uctor == 1", "constructor", "**`Multiregion.constructor`**: not a field of `structs.Multiregion`"],
  ])("%s: says the schema lacks %s", (source, text, contents) => {
    const result = hovered(source, job);
    expect(result?.text).toBe(text);
    expect(result?.contents).toContain(contents);
  });

  it("says whether a key is one of those a map's schema lists", () => {
    const labels: HoverOptions = { schema: { kind: "object", fields: { Labels: { kind: "map", values: "string", keys: ["app", "tier", "team", "zone", "env", "owner"] } } } };
    expect(hovered("Labels.a|pp == \"web\"", labels)?.contents).toBe("**`Labels.app`**: `string`\n\nA key of the map `Labels`, one of the keys its schema lists.");
    expect(hovered("Labels.ap|q == \"web\"", labels)?.contents).toBe(
      "**`Labels.apq`**: `string`\n\nA key of the map `Labels`, but not one of the keys its schema lists (`app`, `tier`, `team`, `zone`, `env`, …).",
    );
  });

  it("names the path without saying what it holds when there is no schema", () => {
    expect(hovered("Meta.ow|ner == \"x\"")).toEqual({ text: "owner", contents: "**`Meta.owner`**: a field\n\nNo schema is set: any JSON value may be there." });
  });

  it.each([
    ["not| == 1", "not"],
    ["any| == 1", "any"],
    ["Meta.i|n == \"x\"", "in"],
    ["\"x\" in an|d", "and"],
  ])("reads a keyword used as a name as a field: %s", (source, text) => {
    const result = hovered(source);
    expect(result?.text).toBe(text);
    expect(result?.contents).toContain("a field");
  });
});

describe("hover over an operator or keyword", () => {
  it.each([
    ['Status |== "running"', "==", "Equal"],
    ['Status !|= "running"', "!=", "NotEqual"],
    ['"dc1" i|n Datacenters', "in", "In"],
    ['"dc1" no|t in Datacenters', "not in", "NotIn"],
    ['"dc1" not i|n Datacenters', "not in", "NotIn"],
    ['Datacenters con|tains "dc1"', "contains", "In"],
    ['Datacenters n|ot contains "dc1"', "not contains", "NotIn"],
    ['Name mat|ches "^web"', "matches", "Matches"],
    ['Name not |matches "^web"', "not matches", "NotMatches"],
    ["Meta i|s empty", "is empty", "IsEmpty"],
    ["Meta is not |empty", "is not empty", "IsNotEmpty"],
    ["Meta is n|ot empty", "is not empty", "IsNotEmpty"],
    ["Multiregion is n|il", "is nil", "IsNil"],
    ["Multiregion |is not nil", "is not nil", "IsNotNil"],
  ] as const)("%s: over %s, from the operator table", (source, text, name) => {
    const result = hovered(source);
    expect(result?.text).toBe(text);
    const spelling = OPERATORS[name].spellings.find((each) => each.text === text)!;
    expect(result?.contents).toContain(`**\`${text}\`** (operator): ${spelling.description}`);
    expect(result?.contents).toContain(OPERATORS[name].description.slice(1));
    expect(result?.contents).toContain(`on a missing key: \`${OPERATORS[name].missing}\``);
  });

  it.each([
    ["a == 1 an|d b == 2", "and"],
    ["a == 1 o|r b == 2", "or"],
    ["no|t a == 1", "not"],
    ["not (no|t a == 1)", "not"],
    ["al|l Datacenters as d { d == \"x\" }", "all"],
    ["any Datacenters a|s d { d == \"x\" }", "as"],
  ])("%s: over the keyword %s", (source, word) => {
    const result = hovered(source);
    expect(result?.text).toBe(word);
    expect(result?.contents).toContain(`**\`${word}\`** (keyword)`);
  });

  it("lists the operators that words still being typed start", () => {
    const result = hovered("Meta i|s");
    expect(result?.text).toBe("is");
    for (const text of ["is empty", "is not empty", "is nil", "is not nil"]) expect(result?.contents).toContain(`- \`${text}\``);
  });

  it("gives examples that are valid filters on the job schema", () => {
    const sources = [
      ...Object.values(OPERATORS).flatMap((definition) =>
        definition.spellings.map(({ text, order }) => (order === "value-first" ? `"x" |${text} X` : order === "unary" ? `X |${text}` : `X |${text} "x"`)),
      ),
      "a == 1 |and b == 1",
      "a == 1 |or b == 1",
      "|not a == 1",
      "|any X as x { x == 1 }",
      "|all X as x { x == 1 }",
      "any X |as x { x == 1 }",
    ];
    const examples = sources.map((source) => /```bexpr\n(.*)\n```/.exec(hovered(source)?.contents ?? "")?.[1]);
    expect(examples.every((text) => text !== undefined)).toBe(true);
    for (const text of examples) expect(validate(text!, job), text).toEqual([]);
  });
});

describe("hover over a bound name", () => {
  it.each([
    ["any TaskGroups as |g { g.Count == 0 }", "g", "**`g`**: `structs.TaskGroup`", "Bound to each element of `TaskGroups`, by `any TaskGroups as g`."],
    ["any TaskGroups as g { |g.Count == 0 }", "g", "**`g`**: `structs.TaskGroup`", "each element of `TaskGroups`"],
    ["any Meta as |k { k == \"owner\" }", "k", "**`k`**: `string`", "Bound to the key of each entry of `Meta`"],
    ["any Meta as k, |v { v == \"x\" }", "v", "**`v`**: `string`", "Bound to the value of each entry of `Meta`"],
    ["any Meta as |k, v { v == \"x\" }", "k", "**`k`**: `string`", "Bound to the key of each entry of `Meta`"],
    ["any TaskGroups as |i, g { i == 0 }", "i", "**`i`**: `int`", "Bound to the index of each element of `TaskGroups`"],
    ["all Datacenters as dc { |dc == \"dc1\" }", "dc", "**`dc`**: `string`", "each element of `Datacenters`"],
    ["any TaskGroups as g { any g.Tasks as t { |t.Driver == \"docker\" } }", "t", "**`t`**: `structs.Task`", "each element of `g.Tasks`, by `any g.Tasks as t`"],
    ["any TaskGroups as |g", "g", "**`g`**: `structs.TaskGroup`", "each element of `TaskGroups`, by `any TaskGroups as g`"],
  ])("%s: over %s", (source, text, first, second) => {
    const result = hovered(source, job);
    expect(result?.text).toBe(text);
    expect(result?.contents).toContain(first);
    expect(result?.contents).toContain(second);
  });

  it("resolves a field through a name bound further out", () => {
    expect(hovered("any TaskGroups as g { any g.Tasks as t { t.Dri|ver == \"docker\" } }", job)).toEqual({
      text: "Driver",
      contents: "**`t.Driver`**: `string`\n\nA field of `structs.Task`: the driver that runs it: docker, exec, raw_exec…\n\n`t` is each element of `g.Tasks`, by `any g.Tasks as t`.",
    });
  });

  it("says what a name is bound to without a schema, for a list or a map alike", () => {
    expect(hovered("any X as |x { x == 1 }")?.contents).toBe("**`x`**\n\nBound to each element of `X` if it is a list, or each key if it is a map, by `any X as x`.");
    expect(hovered("any X as _, |v { v == 1 }")?.contents).toContain("each element (of a list) or value (of a map) of `X`");
    expect(hovered("any X as |_, v { v == 1 }")?.contents).toContain("the index or key is not bound");
  });
});

describe("hover over a literal", () => {
  it.each([
    ['Status == "run|ning"', '"running"', "`Status` holds `string`: compared as the text `running`."],
    ["Status == run|ning", "running", "`Status` holds `string`: compared as the text `running`."],
    ["Priority == 5|0", "50", "`Priority` holds `int`: compared as the integer `50`."],
    ['Priority == "5|0"', '"50"', "`Priority` holds `int`: compared as the integer `50`."],
    ['Priority == "hi|gh"', '"high"', "`Priority` holds `int`: the literal does not convert (Priority holds integers: compare it with a whole number, such as 50), and every object fails here."],
    ["Version == -|1", "-1", "the literal does not convert (Version holds unsigned integers"],
    ["Stop == tr|ue", "true", "`Stop` holds `bool`: compared as `true`."],
    ['"d|c1" in Datacenters', '"dc1"', "`Datacenters` holds `list of string`: compared with each element as the text `dc1`."],
    ['"d|c1" not in Datacenters', '"dc1"', "compared with each element as the text `dc1`"],
    ['Meta contains "ow|ner"', '"owner"', "`Meta` holds `map of string`: looked for among its keys as the text `owner`."],
    ['Name contains "w|eb"', '"web"', "`Name` holds `string`: looked for as a substring as the text `web`."],
    ['Name matches "^w|eb"', '"^web"', "A regular expression (Go's RE2 syntax), looked for anywhere in `Name`."],
    ['Meta == "x|"', '"x"', "`Meta` holds `map of string`: `==` does not compare it, and every object fails here."],
    ['Priority contains "|5"', '"5"', "`in` and `contains` do not apply to it"],
    ['any TaskGroups as g { g.Count == 3| }', "3", "`g.Count` holds `int`: compared as the integer `3`."],
    ['"/Meta/owner" == "|x"', '"x"', '`"/Meta/owner"` holds `string`'],
    ["Status == `ra|w`", "`raw`", "compared as the text `raw`"],
  ])("%s: over %s", (source, text, contents) => {
    const result = hovered(source, job);
    expect(result?.text).toBe(text);
    expect(result?.contents).toContain(contents);
  });

  it("gives the decoded text of a literal, and no comparison without a schema", () => {
    expect(hovered('Status == "a\\tb|"')?.contents).toBe('**`"a\\tb"`**: a string, the text `a b`\n\nCompared with the value at `Status`, read as that value\'s kind when the filter runs.');
    expect(hovered('Name == "/web-|api"')?.contents).toContain("a string in JSON-pointer form, read as the path, the text `web-api`");
  });

  it("quotes a long literal by its start", () => {
    const long = "x".repeat(1_000);
    const contents = hovered(`Status == "${long}|"`)!.contents;
    expect(contents.length).toBeLessThan(400);
    expect(contents).toContain("…");
  });

  it("fences text holding backticks", () => {
    expect(hovered("Status == `a|`")?.contents).toMatch(/^\*\*`` `a` ``\*\*/);
  });
});

describe("hover is bounded and never throws", () => {
  it.each([
    ["whitespace", "Status  |  == 1"],
    ["a bracket", "(Status == 1|)"],
    ["an unsupported operator", "Priority >|= 1"],
    ["the empty source", "|"],
  ])("says nothing over %s", (_what, source) => {
    expect(at(source, job).info).toBeUndefined();
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 100])("says nothing at the offset %s", (offset) => {
    expect(hover("Status == 1", offset)).toBeUndefined();
  });

  it("throws a TypeError for a source that is not a string or an offset that is not a number", () => {
    expect(() => hover(42 as unknown as string, 0)).toThrow(TypeError);
    expect(() => hover("a == 1", "0" as unknown as number)).toThrow(TypeError);
  });

  it("says nothing beyond the parse limits", () => {
    const long = `Status == "${"x".repeat(MAX_SOURCE_LENGTH)}"`;
    expect(hover(long, 2)).toBeUndefined();
    expect(hover("Status == 1", 2, { limits: { maxSourceLength: 5 } })).toBeUndefined();
    expect(hover(`${"(".repeat(200)}a == 1${")".repeat(200)}`, 201)).toBeUndefined();
  });

  it("answers in linear time at the end of a filter at the length limit", () => {
    const clause = 'Meta.owner == "team" and ';
    const source = `${clause.repeat(Math.floor((MAX_SOURCE_LENGTH - 20) / clause.length))}Status == "x"`;
    const started = performance.now();
    expect(hover(source, source.length - 2, job)?.contents).toContain("compared as the text `x`");
    expect(hover(source, 2, job)?.contents).toContain("`map of string`");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("never throws (without hover's safety net), and every range is in the source around the offset", () => {
    fc.assert(
      fc.property(sourceArb, fc.nat(), fc.boolean(), (source, at, typed) => {
        const offset = at % (source.length + 1);
        const info = hoverOrThrow(source, offset, typed ? job : {});
        if (info === undefined) return;
        expect(info.range.start).toBeLessThanOrEqual(offset);
        expect(info.range.end).toBeGreaterThanOrEqual(offset);
        expect(info.range.end).toBeLessThanOrEqual(source.length);
        expect(info.contents.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});
