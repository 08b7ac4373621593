import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fieldSchemaProblem, loadSettings, MAX_SETTINGS_FILE_SIZE, mergeSettings } from "../../src/lsp/settings.js";
import { schemas, validate, type FieldSchema } from "../../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "bexpr-settings-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
function file(name: string, text: string): string {
  writeFileSync(join(directory, name), text);
  return name;
}

describe("the language server's settings", () => {
  it.each([
    ["a kind name", "string"],
    ["a list", { kind: "array", items: "int" }],
    ["a map with its keys", { kind: "map", values: "string", keys: ["a", "b"] }],
    ["a struct", { kind: "object", typeName: "T", fields: { A: "bool", B: { kind: "array", items: { kind: "object", fields: {} } } } }],
  ])("takes %s as a field schema", (_what, schema) => {
    expect(fieldSchemaProblem(schema, "the schema")).toBeUndefined();
  });

  it.each([
    ["an unknown kind name", "text", 'the schema is "text", not a kind'],
    ["a number", 5, "the schema must be a kind name or an object"],
    ["an unknown kind", { kind: "set" }, 'the schema.kind must be "array", "map" or "object", not "set"'],
    ["a list without items", { kind: "array" }, "the schema.items must be a kind name or an object"],
    ["map keys that are not strings", { kind: "map", values: "int", keys: [1] }, "the schema.keys must be a list of strings"],
    ["a struct without fields", { kind: "object" }, "the schema.fields must be an object of field schemas"],
    ["a bad field deep down", { kind: "object", fields: { A: { kind: "map", values: { kind: "array", items: "nope" } } } }, 'the schema.fields.A.values.items is "nope"'],
    ["a type name that is not a string", { kind: "object", fields: {}, typeName: 3 }, "the schema.typeName must be a string"],
    ["docs that are not lines", { kind: "object", fields: { a: "int" }, docs: { a: 3 } }, "the schema.docs must be an object of strings (a line on each field)"],
  ])("reports %s", (_what, schema, problem) => {
    expect(fieldSchemaProblem(schema, "the schema")).toContain(problem);
  });

  it("reads the shipped schemas by name, files relative to the workspace, and samples", () => {
    expect(loadSettings({ schema: "job" }, directory)).toEqual({ schema: schemas.job, problems: [] });
    expect(loadSettings({ schema: "deployment" }, directory)).toEqual({ schema: schemas.deployment, problems: [] });
    file("schema.json", '{ "kind": "object", "fields": { "Phase": "string" } }');
    file("samples.json", '[{ "Phase": "Running", "Big": 12345678901234567890 }]');
    expect(loadSettings({ schema: "schema.json", samples: "samples.json" }, directory)).toEqual({
      schema: { kind: "object", fields: { Phase: "string" } },
      // Integers beyond 2^53 stay exact, as everywhere in bexpr.
      samples: [{ Phase: "Running", Big: 12345678901234567890n }],
      problems: [],
    });
    expect(loadSettings(undefined, directory)).toEqual({ problems: [] });
    expect(loadSettings({ schema: "", samples: null }, directory)).toEqual({ problems: [] });
  });

  it.each([
    ["settings that are not an object", "job", /the bexpr settings must be an object/],
    ["a schema that is not a string", { schema: 5 }, /bexpr\.schema must be "job", "deployment" or the path of a JSON file, got 5/],
    ["a missing schema file", { schema: "nowhere.json" }, /bexpr\.schema: cannot read .*nowhere\.json: no such file/],
    ["a samples file holding an object", { samples: "object.json" }, /bexpr\.samples: .*object\.json must hold a JSON array of sample objects, not an object/],
    ["a samples file that is not JSON", { samples: "broken.json" }, /bexpr\.samples: cannot read .*broken\.json/],
  ])("reports %s as a problem and leaves the setting out", (_what, settings, problem) => {
    file("object.json", "{}");
    file("broken.json", "[1,");
    const loaded = loadSettings(settings, directory);
    expect(loaded.schema).toBeUndefined();
    expect(loaded.samples).toBeUndefined();
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toMatch(problem);
  });

  it("refuses a file larger than the limit without reading it", () => {
    file("huge.json", `[${" ".repeat(MAX_SETTINGS_FILE_SIZE)}]`);
    expect(loadSettings({ samples: "huge.json" }, directory).problems[0]).toMatch(/huge\.json is \d+ bytes; the limit is 16777216/);
  });

  it("lets later settings override earlier ones, one by one, ignoring empty values", () => {
    expect(mergeSettings({ schema: "job", samples: "a.json" }, { schema: "deployment" }, { samples: "" }, null, "x")).toEqual({ schema: "deployment", samples: "a.json" });
  });
});

describe("docs/editors.md", () => {
  const doc = readFileSync("docs/editors.md", "utf8");
  const blocks = (language: string) => [...doc.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!);

  it("has JSON snippets that parse, and a schema the server reads and validate uses", () => {
    const json = blocks("json").map((text) => JSON.parse(text) as unknown);
    expect(json).toHaveLength(2);
    const schema = json[0] as FieldSchema;
    expect(fieldSchemaProblem(schema, "the schema")).toBeUndefined();
    expect(validate('Labels.app == "web" and (any Containers as c { c.Ready == false })', { schema })).toEqual([]);
    expect(validate('Labels.ap == "web"', { schema }).map((d) => d.code)).toEqual(["unknown_key"]);
  });

  it("starts the server as bexpr lsp --stdio in every editor's snippet", () => {
    const starts = [...blocks("lua"), ...blocks("elisp").filter((text) => text.includes("server"))];
    expect(starts.length).toBeGreaterThanOrEqual(5);
    for (const text of starts) expect(text, text).toMatch(/"lsp",? "--stdio"/);
    // The VS Code extension's default command.
    const extension = JSON.parse(readFileSync("editors/vscode/package.json", "utf8")) as { contributes: { configuration: { properties: Record<string, { default: unknown }> } } };
    expect(extension.contributes.configuration.properties["bexpr.command"]!.default).toEqual(["bexpr", "lsp", "--stdio"]);
  });
});
