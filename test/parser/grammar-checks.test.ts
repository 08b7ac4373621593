/**
 * The library builds its lexer and parsers without Chevrotain's checks of the token definitions
 * and of the grammar (they cost milliseconds at every start); they run here instead.
 */
import { Lexer } from "chevrotain";
import { describe, expect, it } from "vitest";
import { LEXER_CONFIG } from "../../src/lexer/lexer.js";
import { allTokens } from "../../src/lexer/tokens.js";
import { FilterParser } from "../../src/parser/parser.js";

describe("Chevrotain's checks, skipped at run time", () => {
  it("find nothing wrong with the tokens", () => {
    const lexer = new Lexer([...allTokens], { ...LEXER_CONFIG, skipValidations: false });
    expect(lexer.lexerDefinitionErrors).toEqual([]);
  });

  it.each([false, true])("find nothing wrong with the grammar (recovering: %s)", (recovering) => {
    // performSelfAnalysis throws on any grammar error (ambiguity, left recursion, a bad name).
    expect(() => new FilterParser(recovering, true)).not.toThrow();
  });
});
