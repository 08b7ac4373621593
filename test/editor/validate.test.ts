import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyFix, compileFilter, FilterSyntaxError, parse, schemas, validate, type Diagnostic, type ValidateOptions } from "../../src/index.js";
import { sourceArb } from "../support/arbitraries.js";

/** A diagnostic as the tables write it: code, span, and the suggestion (or a pattern of it). */
type Expected = readonly [code: Diagnostic["code"], start: number, end: number, suggestion?: string | RegExp];

function check(source: string, expected: readonly Expected[], options: ValidateOptions = {}): void {
  const diagnostics = validate(source, options);
  expect(diagnostics.map((d) => [d.code, d.span.start, d.span.end])).toEqual(expected.map(([code, start, end]) => [code, start, end]));
  diagnostics.forEach((diagnostic, i) => {
    expect(diagnostic.severity).toBe("error");
    expect(diagnostic.message.length).toBeGreaterThan(10);
    const suggestion = expected[i]![3];
    if (suggestion instanceof RegExp) expect(diagnostic.suggestion).toMatch(suggestion);
    else if (suggestion !== undefined) expect(diagnostic.suggestion).toBe(suggestion);
  });
}

describe("validate: one diagnostic per kind of mistake, with its exact span and fix", () => {
  it.each<[string, string, Expected[], ValidateOptions?]>([
    ["an empty filter", "", [["empty_expression", 0, 0, /Status == "running"/]]],
    ["a filter of spaces", "   ", [["empty_expression", 0, 3]]],
    ["an unquoted value with -", "Name == my-job", [["unexpected_character", 10, 11, 'quote the value: "my-job"']]],
    ["single quotes", "Name == 'x'", [["unexpected_character", 8, 9, /double quotes/], ["unexpected_character", 10, 11, /double quotes/]]],
    ["AND for and", "Status == running AND Stop == false", [["unexpected_token", 18, 21, 'keywords are lower-case: write "and", not "AND"']]],
    ["OR for or", 'Status == "a" OR Stop == false', [["unexpected_token", 14, 16, 'keywords are lower-case: write "or", not "OR"']]],
    ["a filter ending in and", 'Status == "running" and', [["unexpected_end", 23, 23]]],
    ["an unclosed string", 'Status == "run', [["unterminated_string", 10, 14, 'end the string with "']]],
    ["an unclosed raw string", "Status == `run", [["unterminated_string", 10, 14]]],
    ["an invalid escape", 'Name == "a\\qb"', [["invalid_string", 10, 12]]],
    ["an exponent", "Priority == 1e3", [["invalid_number", 12, 15, 'quote the value: "1e3"']]],
    ["a leading zero", "Priority == 050", [["invalid_number", 12, 15, 'write 50; quoted ("050"), an integer field reads it as Go does, as octal: 40']]],
    ["a hexadecimal number at the end", "Priority == 0x32", [["invalid_number", 12, 16, 'write 50, or quote it ("0x32"): an integer field reads it as Go does']]],
    ["an octal number", "Priority == 0o62 and Stop == true", [["invalid_number", 12, 16, 'write 50, or quote it ("0o62"): an integer field reads it as Go does']]],
    ["a binary number", "Priority == 0b110010", [["invalid_number", 12, 20, /^write 50,/]]],
    ["a number with _", "Priority == 5_0", [["invalid_number", 12, 15, 'write 50, or quote it ("5_0"): an integer field reads it as Go does']]],
    ["an octal number with a leading zero", "Priority == 062", [["invalid_number", 12, 15, 'write 62; quoted ("062"), an integer field reads it as Go does, as octal: 50']]],
    ["a number with a + sign", "Priority == +50", [["unexpected_character", 12, 13, "write 50"]]],
    ["a field alone after not", "not Stop", [["unexpected_token", 4, 8, "a field alone is not a condition: write Stop == false"]]],
    ["a field alone", 'Meta["x"].y and Stop == true', [["unexpected_token", 12, 15, 'a field alone is not a condition: compare it, as in Meta["x"].y == true']]],
    ["! before a field", "!Stop", [["unsupported_operator", 0, 1, "write Stop == false"], ["unexpected_end", 5, 5, "a field alone is not a condition: write Stop == false"]]],
    ["! before a group", "!(Stop == true)", [["unsupported_operator", 0, 1, 'write "not " (with a space)']]],
    ["a list of values", 'Status in ["running", "pending"]', [["unexpected_token", 10, 11, 'the filter language has no lists: write (Status == "running" or Status == "pending")']]],
    ["a list of values, negated", 'Status not in ["a", "b"]', [["unexpected_token", 14, 15, 'the filter language has no lists: write Status != "a" and Status != "b"']]],
    ["is null", "Status is null", [["unexpected_token", 10, 14, `nil is the filter language's null: write "is nil"`]]],
    ["is not null", "Status is not null", [["unexpected_token", 14, 18, `nil is the filter language's null: write "is not nil"`]]],
    ["text where an integer field is compared", 'Priority == "high"', [["invalid_literal", 12, 18, "compare it with a whole number, such as 50"]], { schema: schemas.job }],
    ["text where a bool field is compared", "Stop != yes", [["invalid_literal", 8, 11, "compare it with true or false"]], { schema: schemas.job }],
    ["a negative index", "CreateIndex == -1", [["invalid_literal", 15, 17, "compare it with a whole number from 0"]], { schema: schemas.job }],
    ["and without spaces", '(Status == "a")and(Name == "b")', [["missing_whitespace", 15, 18, 'write " and " with spaces around it']]],
    ["not( without a space", "not(Stop == true)", [["missing_whitespace", 0, 4, 'write "not (" with a space']]],
    [">=", "Version >= 3", [["unsupported_operator", 8, 10, /no ordering|"=="/]]],
    ["<", "Version < 3", [["unsupported_operator", 8, 9]]],
    ["=", "Stop = true", [["unsupported_operator", 5, 6, 'compare with "=="']]],
    ["&&", 'Stop == true && Name == "x"', [["unsupported_operator", 13, 15, 'write "and"']]],
    ["||", 'Stop == true || Name == "x"', [["unsupported_operator", 13, 15, 'write "or"']]],
    ["a quoted string as a selector", '"not a pointer" == "x"', [["invalid_selector", 0, 15, /JSON pointer/]]],
    ["an unquoted index", "Meta[owner] == 1", [["invalid_index", 5, 10, /Meta\["key"\]/]]],
    ["an index without ]", 'Meta["owner" == "x"', [["unclosed_index", 13, 15, 'add the missing "]"']]],
    ["an index without ] at the end", 'Meta["owner"', [["unclosed_index", 4, 5, 'add the missing "]"']]],
    ["an unclosed (", '(Status == "running"', [["unmatched_parenthesis", 0, 1, 'add the missing ")"']]],
    ["an extra )", 'Status == "running")', [["unmatched_parenthesis", 19, 20, /remove it/]]],
    ["a clause without and", 'Status == "a" Name == "b"', [["unexpected_token", 14, 18, /join clauses with "and" or "or"/]]],
    ["is without empty or nil", "Status is maybe", [["unexpected_token", 10, 15]]],
    ["an invalid regex, with Go's reason", 'Name matches "(["', [["invalid_regex", 13, 17, /Go's regexp \(RE2\) syntax/]]],
    ["lookahead, which RE2 lacks", 'Name matches "(?=x)"', [["invalid_regex", 13, 20, /no lookaround/]]],
    ["a field the schema lacks", 'Stauts == "running"', [["unknown_field", 0, 6, 'did you mean "Status"?']], { schema: schemas.job }],
    ["a nested field the schema lacks", 'JobSummary.Sumary["x"].Running == 1', [["unknown_field", 0, 30, 'did you mean "Summary"?']], { schema: schemas.job }],
    ["a deployment field", 'Statu == "successful"', [["unknown_field", 0, 5, 'did you mean "Status"?']], { schema: schemas.deployment }],
    ["a source over the length limit", "x".repeat(131_073), [["source_too_long", 131_072, 131_073]]],
    ["nesting over the limit", `${"(".repeat(200)}a == 1${")".repeat(200)}`, [["nesting_too_deep", 128, 129, "remove redundant parentheses"]]],
  ])("reports %s", (_name, source, expected, options) => check(source, expected, options));

  it.each([
    ["Status == null", "is nil"],
    ["Status != null", "is not nil"],
    ["Meta.owner == nil", "is nil"],
  ])("warns that %s compares with a text, and points at %s", (source, operator) => {
    const [warning, ...rest] = validate(source);
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({ code: "null_literal", severity: "warning" });
    expect(warning!.suggestion).toContain(`write ${source.split(" ")[0]} ${operator}`);
    // A warning does not make the filter invalid.
    expect(() => compileFilter(source)).not.toThrow();
    expect(validate(source.replace(/(null|nil)$/, '"$1"'))).toEqual([]);
  });

  it("accepts a quoted value that converts to its field's kind, base prefixes included", () => {
    expect(validate('Priority == "0x32" and Stop == "true" and CreateIndex == 7', { schema: schemas.job })).toEqual([]);
    // Without a schema nothing is known of the field: no diagnostic, as before.
    expect(validate('Priority == "high"')).toEqual([]);
  });

  it("reports too many clauses over the whole filter", () => {
    const source = Array.from({ length: 10_001 }, (_, i) => `a == ${i}`).join(" or ");
    check(source, [["too_many_clauses", 0, source.length, /regular expression/]]);
  });

  it("gives lines and columns (in code points) on later lines", () => {
    const [diagnostic] = validate('Status == "running"\nand Name == my-job\n');
    expect(diagnostic).toMatchObject({ code: "unexpected_character", line: 2, column: 15 });
    const [wide] = validate('Name == "é" and\n  😀');
    expect(wide).toMatchObject({ code: "unexpected_character", line: 2, column: 3 });
  });

  it("accepts valid filters, fields the schema has and keys of maps", () => {
    expect(validate('Status == "running" and "dc1" in Datacenters')).toEqual([]);
    expect(validate('Meta.owner == "x" and JobSummary.Summary["web"].Running == 1', { schema: schemas.job })).toEqual([]);
    expect(validate('any TaskGroups as g { g.Name == "web" }', { schema: schemas.deployment })).toEqual([]);
  });

  it("leaves unknown fields alone without a schema", () => {
    expect(validate('Stauts == "running"')).toEqual([]);
  });
});

/** A filter's tree as JSON, without the spans (which move when a fix changes a length). */
const withoutSpans = (source: string) => JSON.stringify(parse(source), (key, value: unknown) => (key === "span" ? undefined : value));

describe("validate: a double-quoted value in JSON-pointer form (pointer_literal)", () => {
  // The reference's Value tries Selector first: "/a/b" is a path, and the value compared is its
  // segments, unescaped and joined by "/" without the leading one (grammar.peg, Selector.String).
  it("is a value holding the path's text in the AST, not a selector", () => {
    expect(parse('Path == "/v1/jobs"')).toMatchObject({ selector: { path: ["Path"] }, value: { kind: "Value", raw: "v1/jobs", span: { start: 8, end: 18 } } });
  });

  it.each([
    // source, the quoted value, the text it compares with today
    ['Path == "/v1/jobs"', '"/v1/jobs"', "v1/jobs"],
    ['Path != "/v1/jobs"', '"/v1/jobs"', "v1/jobs"],
    ['Name matches "/web-api"', '"/web-api"', "web-api"],
    ['Name not matches "/web-api"', '"/web-api"', "web-api"],
    ['"/dc1" in Datacenters', '"/dc1"', "dc1"],
    ['"/dc1" not in Datacenters', '"/dc1"', "dc1"],
    ['Datacenters contains "/dc1"', '"/dc1"', "dc1"],
    ['Path == "/a~1b~0c"', '"/a~1b~0c"', "a/b~c"],
    ['Name == "/é:x|y.z_-"', '"/é:x|y.z_-"', "é:x|y.z_-"],
    ['"/Meta/owner" == "/team-a"', '"/team-a"', "team-a"],
    ['any Datacenters as dc { dc == "/dc1" }', '"/dc1"', "dc1"],
    ['Status == "running" and\n  Path == "/v1/jobs"', '"/v1/jobs"', "v1/jobs"],
  ])("warns at the value of %j, which compares with the text %s", (source, quoted, now) => {
    const start = source.lastIndexOf(quoted);
    const [warning, ...rest] = validate(source);
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({ code: "pointer_literal", severity: "warning", span: { start, end: start + quoted.length } });
    expect(warning!.message).toBe(`${quoted} is read as a JSON pointer: this compares with the text ${JSON.stringify(now)}, not ${quoted}`);
    const backticks = `\`${quoted.slice(1, -1)}\``;
    expect(warning!.suggestion).toBe(`to compare with ${quoted}, write it in backticks: ${backticks}`);
    // The first fix keeps the text as written, the second what it means today; both leave no problem.
    const [asWritten, asNow] = warning!.fixes!.map((fix) => applyFix(source, fix));
    expect(asWritten).toBe(source.slice(0, start) + backticks + source.slice(start + quoted.length));
    expect(validate(asWritten!)).toEqual([]);
    expect(validate(asNow!)).toEqual([]);
    expect(asNow).not.toContain(quoted);
    // The second fix keeps the meaning: the same tree but for the spans; the first one changes it.
    expect(withoutSpans(asNow!)).toBe(withoutSpans(source));
    expect(withoutSpans(asWritten!)).toBe(withoutSpans(source).replace(JSON.stringify(now), JSON.stringify(quoted.slice(1, -1))));
  });

  it.each([
    ["a lone slash, not a pointer", 'Path == "/"'],
    ["the empty string, which reads back as itself", 'Path == ""'],
    ["text not starting with /", 'Path == "v1/jobs"'],
    ["a space in a segment", 'Path == "/v1 jobs"'],
    ["an empty segment", 'Path == "/v1//jobs"'],
    ["a character no segment allows", 'Path == "/v1/jobs?x=1"'],
    ["an escaped slash", 'Path == "\\x2fv1/jobs"'],
    ["backticks", "Path == `/v1/jobs`"],
    ["a bare word with /", "Path == v1/jobs"],
    ["a pointer as the selector of ==", '"/Path" == "v1"'],
    ["a pointer as the selector of in", '"v1" in "/Paths"'],
    ["a pointer as the selector of contains", '"/Paths" contains "v1"'],
    ["a pointer as the selector of is empty", '"/Path" is empty'],
    ["a pointer as the selector of a collection", 'any "/Datacenters" as dc { dc == "dc1" }'],
    ["a pointer-shaped index key", 'Meta["/owner"] == "x"'],
  ])("leaves %s alone: %s", (_name, source) => {
    expect(validate(source)).toEqual([]);
  });

  it("does not warn at single quotes, which are not strings", () => {
    expect(validate("Path == '/v1/jobs'").map((d) => d.code)).toEqual(["unexpected_character", "unexpected_character"]);
  });

  it("is fixed by fixAll's first fix, the backticks: the filter then compares with the text as written", () => {
    const source = 'Path == "/v1/jobs"';
    const before = compileFilter(source);
    expect(before.test({ Path: "/v1/jobs" })).toBe(false);
    expect(before.test({ Path: "v1/jobs" })).toBe(true);
    // The path is never looked up: an object holding something at /v1/jobs changes nothing.
    expect(before.test({ Path: "x", v1: { jobs: "x" } })).toBe(false);
    const [warning] = validate(source);
    const after = compileFilter(applyFix(source, warning!.fixes![0]!));
    expect(after.test({ Path: "/v1/jobs" })).toBe(true);
    expect(after.test({ Path: "v1/jobs" })).toBe(false);
    const member = '"/dc1" in Datacenters';
    expect(compileFilter(member).test({ Datacenters: ["/dc1"] })).toBe(false);
    expect(compileFilter(applyFix(member, validate(member)[0]!.fixes![0]!)).test({ Datacenters: ["/dc1"] })).toBe(true);
  });
});

describe("validate: several mistakes in one pass", () => {
  it("reports every mistake of a string, in source order", () => {
    check('Status == running AND Version >= 3 and Name == my-job or (Stop == ', [
      ["unexpected_token", 18, 21, /lower-case/],
      ["unsupported_operator", 30, 32],
      ["unexpected_character", 49, 50, 'quote the value: "my-job"'],
      ["unmatched_parenthesis", 57, 58, 'add the missing ")"'],
    ]);
  });

  it("reports syntax, regex and schema problems together", () => {
    check(
      'Stauts == "a" and Name matches "(" && Prioirty == 1',
      [
        ["unknown_field", 0, 6, 'did you mean "Status"?'],
        ["invalid_regex", 31, 34],
        ["unsupported_operator", 35, 37, 'write "and"'],
        ["unknown_field", 38, 46, 'did you mean "Priority"?'],
      ],
      { schema: schemas.job },
    );
  });

  it("reports an unclosed group and the missing operand at the end", () => {
    check('(Name == "a" or Stop == ', [
      ["unmatched_parenthesis", 0, 1],
      ["unexpected_end", 24, 24],
    ]);
  });
});

describe("validate: properties", () => {
  it("never throws, keeps spans inside the source, and agrees with compileFilter", () => {
    fc.assert(
      fc.property(sourceArb, (source) => {
        const diagnostics = validate(source);
        for (const d of diagnostics) {
          expect(d.span.start).toBeGreaterThanOrEqual(0);
          expect(d.span.start).toBeLessThanOrEqual(d.span.end);
          expect(d.span.end).toBeLessThanOrEqual(source.length);
        }
        let compiled: unknown;
        try {
          compiled = compileFilter(source);
        } catch (error) {
          expect(error).toBeInstanceOf(FilterSyntaxError);
        }
        // Valid (no errors; warnings allowed) exactly when it compiles.
        expect(diagnostics.every((d) => d.severity === "warning")).toBe(compiled !== undefined);
      }),
      { numRuns: 5000 },
    );
  });

  it("throws a TypeError that says so for a value that is not a string", () => {
    expect(() => validate(42 as unknown as string)).toThrow(new TypeError("the filter must be a string, got number 42"));
  });
});
