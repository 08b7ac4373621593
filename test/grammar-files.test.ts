import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NonTerminal, RepetitionMandatoryWithSeparator, RepetitionWithSeparator } from "chevrotain";
import { CST_TYPES_PATH, DIAGRAMS_PATH, EBNF_PATH, cstTypes, diagramsHtml, ebnf, expression } from "../scripts/grammar-artifacts.js";
import { Comma } from "../src/lexer/tokens.js";
import { AstBuilder, strictParser } from "../src/parser/build-ast.js";

describe("generated grammar files", () => {
  it.each([
    [EBNF_PATH, ebnf],
    [CST_TYPES_PATH, cstTypes],
    [DIAGRAMS_PATH, diagramsHtml],
  ])("%s is current (regenerate with npm run grammar)", (path, generate) => {
    expect(readFileSync(path, "utf8")).toBe(generate());
  });

  it("has an AST builder method for every parser rule", () => {
    expect(() => new AstBuilder("").validateVisitor()).not.toThrow();
  });

  it("writes one production per parser rule in grammar/filter.ebnf", () => {
    const ebnf = readFileSync("grammar/filter.ebnf", "utf8");
    for (const rule of Object.keys(strictParser.getGAstProductions())) {
      expect(ebnf, `rule ${rule}`).toMatch(new RegExp(`^${rule}\\s+::=`, "m"));
    }
  });

  it("writes repetitions with a separator, which no rule uses yet, with their separator", () => {
    const item = [new NonTerminal({ nonTerminalName: "binding" })];
    expect(expression(new RepetitionMandatoryWithSeparator({ definition: item, separator: Comma }))).toBe('binding ( "," binding )*');
    expect(expression(new RepetitionWithSeparator({ definition: item, separator: Comma }))).toBe('( binding ( "," binding )* )?');
  });
});
