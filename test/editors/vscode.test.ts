/**
 * The VS Code extension (editors/vscode/): its TextMate grammar colours every golden filter as the
 * language server's semantic tokens classify it (vscode-textmate with vscode-oniguruma, the
 * engine VS Code runs), and `npm run build:vscode` makes a .vsix whose manifest declares the
 * language, its grammar, its bracket rules and the bundled client, and keeps the program it starts
 * out of a workspace's hands.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import oniguruma from "vscode-oniguruma";
import textmate from "vscode-textmate";
import { classifyTokens, type TokenClass } from "../../src/editor/structure.js";
import { validate } from "../../src/index.js";

const ROOT = resolve(import.meta.dirname, "../..");
const EXTENSION = join(ROOT, "editors/vscode");
const run = promisify(execFile);

/** Every filter of the golden scenarios that is valid (the grammar colours tokens, not mistakes). */
const GOLDEN = readdirSync(join(ROOT, "test/golden/scenarios"))
  .flatMap((name) => (JSON.parse(readFileSync(join(ROOT, "test/golden/scenarios", name), "utf8")) as { cases: { filter: string }[] }).cases.map((c) => c.filter))
  .filter((filter) => filter.trim() !== "" && validate(filter).every((diagnostic) => diagnostic.severity !== "error"));

/** The TextMate scope each class of semantic token must have (a prefix of its innermost scope). */
const SCOPE_OF: Readonly<Record<TokenClass, readonly string[]>> = {
  property: ["variable.other.property"],
  // TextMate cannot tell a bound variable from a field, nor a JSON pointer or a pattern from a string.
  variable: ["variable.other.property", "variable.language.blank"],
  pointer: ["string.quoted.double"],
  regexp: ["string.quoted"],
  string: ["string.quoted"],
  keyword: ["keyword.operator.word", "keyword.control"],
  operator: ["keyword.operator.comparison"],
  number: ["constant.numeric"],
  constant: ["constant.language"],
};

describe("the VS Code extension's TextMate grammar", () => {
  let grammar: textmate.IGrammar;

  beforeAll(async () => {
    const wasm = readFileSync(join(ROOT, "node_modules/vscode-oniguruma/release/onig.wasm"));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({ createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns), createOnigString: (text) => new oniguruma.OnigString(text) }),
      loadGrammar: async (scopeName) => (scopeName === "source.bexpr" ? textmate.parseRawGrammar(readFileSync(join(EXTENSION, "syntaxes/bexpr.tmLanguage.json"), "utf8"), "bexpr.tmLanguage.json") : null),
    });
    grammar = (await registry.loadGrammar("source.bexpr"))!;
  });

  it.each([
    [String.raw`Name == "a\nb"`, String.raw`\n`, true],
    [String.raw`Name == "a\x41b"`, String.raw`\x41`, true],
    // The lexer refuses \' in a double-quoted string (invalid_string), as Go does: no escape colour.
    [String.raw`Name == "a\'b"`, String.raw`\'`, false],
  ])("colours the escapes the lexer takes, and only those: %s", (filter, escape, coloured) => {
    const at = filter.indexOf(escape);
    const token = grammar.tokenizeLine(filter, textmate.INITIAL).tokens.find((t) => t.startIndex <= at && at < t.endIndex)!;
    expect(token.scopes.includes("constant.character.escape.bexpr")).toBe(coloured);
    expect(validate(filter).some((diagnostic) => diagnostic.code === "invalid_string")).toBe(!coloured);
  });

  it("has golden filters to colour", () => {
    expect(GOLDEN.length).toBeGreaterThan(50);
  });

  it.each(GOLDEN)("colours %j as the semantic tokens classify it", (filter) => {
    const { tokens } = grammar.tokenizeLine(filter, textmate.INITIAL);
    const scopeAt = (offset: number) => tokens.find((token) => token.startIndex <= offset && offset < token.endIndex)?.scopes.at(-1) ?? "";
    const mismatches = classifyTokens(filter)
      .map((token) => ({ text: filter.slice(token.start, token.end), kind: token.kind, scope: scopeAt(token.start) }))
      .filter(({ kind, scope }) => !SCOPE_OF[kind].some((prefix) => scope.startsWith(prefix)))
      // An unquoted value is text to the server, a name to a grammar that cannot see the operator before it.
      .filter(({ text, kind, scope }) => !(kind === "string" && /^[A-Za-z]/.test(text) && scope.startsWith("variable.other.property")));
    expect(mismatches).toEqual([]);
  });
});

describe("npm run build:vscode", () => {
  let listing: string;
  let manifest: {
    name: string;
    publisher: string;
    main: string;
    capabilities?: { untrustedWorkspaces?: { supported: boolean | "limited"; restrictedConfigurations?: string[]; description?: string } };
    contributes: {
      languages: { id: string; extensions: string[]; configuration: string }[];
      grammars: { path: string; scopeName: string }[];
      configuration: { properties: Record<string, { scope?: string; description: string }> };
    };
  };
  let vsix: string;

  beforeAll(async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, "scripts/build-vscode.mjs")], { cwd: ROOT, encoding: "utf8" });
    vsix = stdout.trim().split("\n").at(-1)!;
    listing = (await run("unzip", ["-l", vsix], { encoding: "utf8" })).stdout;
    manifest = JSON.parse((await run("unzip", ["-p", vsix, "extension/package.json"], { encoding: "utf8" })).stdout);
  }, 120_000);

  it("holds the manifest, the grammar, the bracket rules and the bundled client, and no source", () => {
    for (const file of ["extension.vsixmanifest", "extension/package.json", "extension/language-configuration.json", "extension/syntaxes/bexpr.tmLanguage.json", "extension/dist/extension.js", "extension/LICENSE.txt"]) {
      expect(listing, file).toContain(file);
    }
    expect(listing).not.toContain("extension/src/");
    expect(listing).not.toContain("node_modules");
  });

  it("holds as many files of the extension's own as the README says", () => {
    const files = listing.split("\n").filter((line) => / extension\/\S/.test(line)).length;
    const said = /a small extension \((\w+) files:/.exec(readFileSync(join(ROOT, "README.md"), "utf8"))?.[1];
    expect(said).toBe(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"][files]);
  });

  it("declares the language for .bexpr files with its grammar and configuration, and a main the package holds", () => {
    expect(manifest.contributes.languages[0]).toMatchObject({ id: "bexpr", extensions: [".bexpr"], configuration: "./language-configuration.json" });
    expect(manifest.contributes.grammars[0]).toMatchObject({ scopeName: "source.bexpr", path: "./syntaxes/bexpr.tmLanguage.json" });
    expect(listing).toContain(`extension/${manifest.main.replace(/^\.\//, "")}`);
  });

  it("has a VSIX manifest naming the extension and its publisher", async () => {
    const xml = (await run("unzip", ["-p", vsix, "extension.vsixmanifest"], { encoding: "utf8" })).stdout;
    expect(xml).toMatch(new RegExp(`<Identity [^>]*Id="${manifest.name}"[^>]*Publisher="${manifest.publisher}"`));
  });

  it("lets only the user's settings name the program it starts, and stays off in a folder not trusted", () => {
    const { properties } = manifest.contributes.configuration;
    // A workspace's .vscode/settings.json cannot set a machine setting. The other two are data
    // files the server reads (JSON, size-limited), relative to the workspace: the workspace's to set.
    expect(Object.keys(properties).sort()).toEqual(["bexpr.command", "bexpr.samples", "bexpr.schema"]);
    expect(Object.entries(properties).flatMap(([name, property]) => (property.scope === "machine" ? [name] : []))).toEqual(["bexpr.command"]);
    expect(properties["bexpr.schema"]!.scope).toBeUndefined();
    expect(properties["bexpr.samples"]!.scope).toBeUndefined();
    // The program may be the workspace's own (npx bexpr, or Windows finding bexpr.exe in the folder): not in Restricted Mode.
    expect(manifest.capabilities?.untrustedWorkspaces).toEqual({ supported: false, description: expect.stringContaining("bexpr.command") });
  });

  it("closes quotes and backticks, and matches brackets", () => {
    const configuration = JSON.parse(readFileSync(join(EXTENSION, "language-configuration.json"), "utf8")) as { brackets: string[][]; autoClosingPairs: { open: string }[] };
    expect(configuration.autoClosingPairs.map((pair) => pair.open)).toEqual(["(", "[", "{", '"', "`"]);
    expect(configuration.brackets).toEqual([["(", ")"], ["[", "]"], ["{", "}"]]);
  });
});
