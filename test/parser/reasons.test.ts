/**
 * The diagnostics of syntax errors take their code, fix and hint from the grammar's reason for
 * stopping (the rule and the token it wanted), never from the words of Chevrotain's message: a
 * table of each reason's code, and a check that parse.ts reads no message's text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validate } from "../../src/index.js";

describe("syntax error codes", () => {
  it.each([
    ['(Status == "running"', "unmatched_parenthesis", 'add the missing ")"'],
    ['Meta[owner] == "a"', "invalid_index", 'write Meta["key"] or Meta.key, and Items.0 for a list index'],
    ['Meta["owner"', "unclosed_index", 'add the missing "]"'],
    ['Status "running"', "unexpected_token", undefined],
    ["Status is null", "unexpected_token", 'nil is the filter language\'s null: write "is nil"'],
    ["Status is not null", "unexpected_token", 'nil is the filter language\'s null: write "is not nil"'],
    ['Status == "running" AND Stop == false', "unexpected_token", 'keywords are lower-case: write "and", not "AND"'],
    ["Status ==", "unexpected_end", undefined],
  ])("%j: %s", (filter, code, suggestion) => {
    const [first] = validate(filter);
    expect(first?.code).toBe(code);
    if (suggestion !== undefined) expect(first?.suggestion).toBe(suggestion);
  });

  it("are chosen without reading a message's words", () => {
    const source = readFileSync(join(import.meta.dirname, "../../src/parser/parse.ts"), "utf8");
    expect(source).not.toMatch(/message\.(startsWith|includes|match|test|indexOf)\(/);
  });
});
