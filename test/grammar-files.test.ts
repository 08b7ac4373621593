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

describe("grammar/diagrams.html", () => {
  const html = readFileSync(DIAGRAMS_PATH, "utf8");
  /** Elements that load a resource, by attribute, and the ways a script or a style fetches one. */
  const LOADERS = [
    /<(?:script|img|iframe|embed|source|audio|video|object)\b[^>]*\s(?:src|data)\s*=/gi,
    /<link\b[^>]*\shref\s*=/gi,
    /url\(\s*['"]?(?!data:|#)[^)'"\s]/gi,
    /@import\b/gi,
    /\bfetch\s*\(|\bXMLHttpRequest\b|\bimport\s*\(|\bnew\s+(?:Worker|EventSource|WebSocket)\b|\bsendBeacon\b/g,
  ];
  const loads = (page: string) => LOADERS.flatMap((loader) => page.match(loader) ?? []);

  it("loads nothing from the network: every script and style is inline, and nothing is fetched", () => {
    expect(loads(html)).toEqual([]);
    // The page is made of its own inline scripts.
    expect(html.match(/<script>/g)?.length).toBeGreaterThan(0);
  });

  it("would be caught loading from the network: a CDN script, a stylesheet, an image in CSS and a fetch are found", () => {
    const page = '<script src="https://unpkg.com/chevrotain/lib/chevrotain.min.js"></script><link rel="stylesheet" href="https://x/y.css"><style>a{background:url(https://x/i.png)}</style><script>fetch("/x")</script>';
    expect(loads(page)).toHaveLength(4);
  });
});
