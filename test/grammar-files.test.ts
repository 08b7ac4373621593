import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NonTerminal, RepetitionMandatoryWithSeparator, RepetitionWithSeparator } from "chevrotain";
import { DIAGRAMS_PATH, EBNF_PATH, diagramsHtml, ebnf, expression } from "../scripts/grammar-artifacts.js";
import { Comma } from "../src/lexer/tokens.js";
import { strictParser } from "../src/parser/parser.js";

describe("generated grammar files", () => {
  it.each([
    [EBNF_PATH, ebnf],
    [DIAGRAMS_PATH, diagramsHtml],
  ])("%s is current (regenerate with npm run grammar)", (path, generate) => {
    expect(readFileSync(path, "utf8")).toBe(generate());
  });

  it("writes one production per parser rule in grammar/filter.ebnf", () => {
    const ebnf = readFileSync("grammar/filter.ebnf", "utf8");
    for (const rule of Object.keys(strictParser().getGAstProductions())) {
      expect(ebnf, `rule ${rule}`).toMatch(new RegExp(`^${rule}\\s+::=`, "m"));
    }
  });

  it("writes repetitions with a separator, which no rule uses yet, with their separator", () => {
    const item = [new NonTerminal({ nonTerminalName: "binding" })];
    expect(expression(new RepetitionMandatoryWithSeparator({ definition: item, separator: Comma }))).toBe('binding ( "," binding )*');
    expect(expression(new RepetitionWithSeparator({ definition: item, separator: Comma }))).toBe('( binding ( "," binding )* )?');
  });
});
