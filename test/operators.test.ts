/**
 * The operator table is what the parsers, the printer, completion and the evaluator read: every
 * spelling parses (by the fast reader and by the full parser) to its row's operator and prints
 * back as written; negations pair up; completion offers every spelling; and the evaluator's
 * missing-key results are the table's.
 */
import { describe, expect, it } from "vitest";
import type { MatchExpression } from "../src/ast.js";
import { complete } from "../src/editor/complete.js";
import { compileFilter } from "../src/filter.js";
import { DEFAULT_LIMITS } from "../src/limits.js";
import { KEYWORDS, MATCH_OPERATORS, negationOf, operator, SPELLINGS } from "../src/operators.js";
import { tokenize } from "../src/lexer/lexer.js";
import { keywordTokens } from "../src/lexer/tokens.js";
import { fastRead } from "../src/parser/fast-read.js";
import { parse } from "../src/parser/parse.js";
import { print } from "../src/parser/printer.js";

/** A filter written with `spelling`: `Meta.k <op> "v"`, `"v" <op> Meta.k` or `Meta.k <op>`. */
function written(text: string, order: "selector-first" | "value-first" | "unary"): string {
  return order === "unary" ? `Meta.k ${text}` : order === "value-first" ? `"v" ${text} Meta.k` : `Meta.k ${text} "v"`;
}

const rows = MATCH_OPERATORS.flatMap((name) => operator(name).spellings.map((spelling) => [name, spelling.text, spelling] as const));

describe("the operator table", () => {
  it("holds every keyword: the lexer has a token for each and no other, and each is read as a name where a name is expected", () => {
    expect(keywordTokens.map((token) => (token.LABEL ?? "").replaceAll('"', "")).sort()).toEqual([...KEYWORDS].sort());
    for (const word of [...SPELLINGS.keys()].flatMap((text) => text.split(" ")).filter((part) => /^[a-z]+$/.test(part))) expect(KEYWORDS).toContain(word);
    for (const word of KEYWORDS) {
      expect(tokenize(word).tokens.map((token) => token.image), word).toEqual([word]);
      expect(parse(`Meta.${word} == "v"`), word).toMatchObject({ selector: { path: ["Meta", word] } });
    }
  });

  it.each(rows)("%s written %j parses to its row, by both parsers, and prints back as written", (name, text, spelling) => {
    const source = written(text, spelling.order);
    const full = parse(source) as MatchExpression;
    expect(full.operator).toBe(name);
    if ("value" in full) expect(full.spelling).toBe(spelling.ast);
    expect(fastRead(source, DEFAULT_LIMITS)).toEqual(full);
    expect(print(full)).toBe(source);
  });

  it.each(MATCH_OPERATORS)("%s and its negation pair up: same test and arity, opposite negation and missing-key result", (name) => {
    const row = operator(name);
    const negation = operator(negationOf(name));
    expect(negationOf(negationOf(name))).toBe(name);
    expect([negation.test, negation.arity, negation.negated, negation.missing]).toEqual([row.test, row.arity, !row.negated, !row.missing]);
    expect(negation.spellings.map((spelling) => spelling.order)).toEqual(row.spellings.map((spelling) => spelling.order));
  });

  it("has each spelling once, and completion offers every one of them", () => {
    expect(SPELLINGS.size).toBe(rows.length);
    const offered = complete("Meta.k ", 7)
      .filter((completion) => completion.kind === "operator")
      .map((completion) => completion.label);
    expect([...offered].sort()).toEqual(rows.map(([, text]) => text).sort());
  });

  it.each(MATCH_OPERATORS)("%s gives its row's result on a key missing from a map, in the evaluator", (name) => {
    const { spellings, missing } = operator(name);
    const filter = compileFilter(written(spellings[0]!.text, spellings[0]!.order));
    expect(filter.test({ Meta: {} })).toBe(missing);
  });
});
