/**
 * docs/editors.md's Neovim 0.7 snippet (Debian 12's Neovim), run in headless Neovim against the
 * real `bexpr lsp --stdio`: the file type is set, the client starts, diagnostics arrive, the
 * samples given in `init_options` reach completion, hover, document highlight, go to definition
 * and rename answer through Neovim 0.7's own client (the features of the language server that 0.7
 * has: it has no semantic tokens, selection ranges or inlay hints), and without `bexpr` on the PATH
 * the user is told so, with no Lua traceback.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bexprOnPath, installed, pathWithoutBexpr, snippet } from "./support.js";

const HAVE_NEOVIM = installed("nvim");
const work = mkdtempSync(join(tmpdir(), "bexpr-neovim-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Waits for the diagnostics, asks for completion at the end of line 2, and writes both (and the messages) as JSON. */
const HARNESS = `
local out = arg_out
local ok = vim.wait(arg_wait, function() return #vim.diagnostic.get(0) > 0 end, 50)
local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(diagnostics, { line = d.lnum, col = d.col, message = d.message }) end
local labels = {}
local clients = vim.lsp.buf_get_clients(0)
if next(clients) ~= nil then
  local params = { textDocument = vim.lsp.util.make_text_document_params(), position = { line = 1, character = 14 } }
  local answers = vim.lsp.buf_request_sync(0, "textDocument/completion", params, 20000) or {}
  for _, answer in pairs(answers) do
    local items = answer.result and (answer.result.items or answer.result) or {}
    for _, item in ipairs(items) do table.insert(labels, item.label) end
  end
end
local messages = vim.api.nvim_exec("messages", true)
local file = io.open(out, "w")
file:write(vim.fn.json_encode({ filetype = vim.bo.filetype, waited = ok, diagnostics = diagnostics, labels = labels, messages = messages }))
file:close()
vim.cmd("qa!")
`;

interface Outcome {
  readonly filetype: string;
  readonly waited: boolean;
  readonly diagnostics: { line: number; col: number; message: string }[];
  readonly labels: string[];
  readonly messages: string;
}

/** The filter of the features test, and the places it asks about. */
const FEATURES_FILTER = 'any TaskGroups as g { g.Count == 0 and g.Name != "web" } and Stauts == "x"';
const AT = {
  field: FEATURES_FILTER.indexOf("TaskGroups") + 2,
  declaration: FEATURES_FILTER.indexOf("as g") + 3,
  firstUse: FEATURES_FILTER.indexOf("g.Count"),
  secondUse: FEATURES_FILTER.indexOf("g.Name"),
};

/**
 * Waits for the diagnostics (the misspelt `Stauts`: the server has read the document), then asks
 * Neovim's client for a hover, the highlights and the definition of `g`, and its rename to `tg`,
 * applied to the buffer; writes the answers as JSON.
 */
const FEATURES_HARNESS = `
local out = arg_out
local ok = vim.wait(arg_wait, function() return #vim.diagnostic.get(0) > 0 end, 50)
local function ask(method, params)
  params.textDocument = vim.lsp.util.make_text_document_params()
  local answers = vim.lsp.buf_request_sync(0, method, params, 20000) or {}
  for _, answer in pairs(answers) do if answer.result ~= nil then return answer.result end end
  return vim.NIL
end
local function at(character) return { line = 0, character = character } end
local hover = ask("textDocument/hover", { position = at(${AT.field}) })
local highlights = ask("textDocument/documentHighlight", { position = at(${AT.firstUse}) })
local definition = ask("textDocument/definition", { position = at(${AT.secondUse}) })
local rename = ask("textDocument/rename", { position = at(${AT.declaration}), newName = "tg" })
if rename ~= vim.NIL then vim.lsp.util.apply_workspace_edit(rename, "utf-16") end
local file = io.open(out, "w")
file:write(vim.fn.json_encode({ waited = ok, hover = hover, highlights = highlights, definition = definition, renamed = vim.api.nvim_buf_get_lines(0, 0, 1, false)[1], messages = vim.api.nvim_exec("messages", true) }))
file:close()
vim.cmd("qa!")
`;

interface Range {
  readonly start: { line: number; character: number };
  readonly end: { line: number; character: number };
}

interface FeaturesOutcome {
  readonly waited: boolean;
  readonly hover: { contents: { kind?: string; value: string } | string };
  readonly highlights: { range: Range }[];
  readonly definition: { uri: string; range: Range } | { uri: string; range: Range }[];
  readonly renamed: string;
  readonly messages: string;
}

/** Opens `filter.bexpr` (holding `text`) in headless Neovim with the snippet as init.lua, in a project of its own, and runs `harness`. */
function runNeovim(name: string, path: string, waitMs = 60_000, text = 'Status == "running" and\nMeta.owner == \n', harness = HARNESS): { outcome: Outcome | undefined; stderr: string } {
  const project = join(work, name);
  mkdirSync(join(project, "fixtures"), { recursive: true });
  writeFileSync(join(project, "init.lua"), snippet("Debian 12 ships Neovim 0.7", "lua"));
  writeFileSync(join(project, "fixtures/jobs.json"), JSON.stringify([{ ID: "web", Status: "running", Meta: { owner: "team-sample" } }]));
  writeFileSync(join(project, "filter.bexpr"), text);
  const out = join(project, "out.json");
  writeFileSync(join(project, "harness.lua"), `local arg_out = ${JSON.stringify(out)}\nlocal arg_wait = ${waitMs}\n${harness}`);
  const result = spawnSync("nvim", ["--headless", "-n", "-i", "NONE", "-u", join(project, "init.lua"), "filter.bexpr", "-c", "luafile harness.lua"], {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, PATH: path, HOME: project, XDG_CONFIG_HOME: join(project, ".config"), XDG_DATA_HOME: join(project, ".data"), XDG_STATE_HOME: join(project, ".state") },
    timeout: 120_000,
  });
  let outcome: Outcome | undefined;
  try {
    outcome = JSON.parse(readFileSync(out, "utf8")) as Outcome;
  } catch {
    outcome = undefined;
  }
  return { outcome, stderr: `${result.stderr}${result.error?.message ?? ""}` };
}

describe.skipIf(!HAVE_NEOVIM)("docs/editors.md's Neovim 0.7 snippet, in Neovim", () => {
  it("starts the client for a .bexpr file: diagnostics, and completion from the samples of init_options", () => {
    const { outcome, stderr } = runNeovim("with-bexpr", `${bexprOnPath(work)}:${process.env.PATH ?? ""}`);
    expect(outcome, stderr).toBeDefined();
    expect(outcome!.filetype).toBe("bexpr");
    expect(outcome!.waited).toBe(true);
    // The filter ends after "==": the server says so at the end.
    expect(outcome!.diagnostics).toContainEqual(expect.objectContaining({ line: 2, message: expect.stringContaining("found the end of the filter") }));
    expect(outcome!.labels).toContain("team-sample");
    expect(outcome!.messages).not.toMatch(/traceback|E5108|Error/i);
  }, 180_000);

  it("answers hover, document highlight, definition and rename through Neovim 0.7's client", () => {
    const { outcome: answered, stderr } = runNeovim("features", `${bexprOnPath(work)}:${process.env.PATH ?? ""}`, 60_000, `${FEATURES_FILTER}\n`, FEATURES_HARNESS);
    const outcome = answered as unknown as FeaturesOutcome | undefined;
    expect(outcome, stderr).toBeDefined();
    expect(outcome!.waited).toBe(true);
    // The field's hover ends with the reference's description of it (the job schema of init_options).
    const hover = typeof outcome!.hover.contents === "string" ? outcome!.hover.contents : outcome!.hover.contents.value;
    expect(hover).toContain("TaskGroups");
    expect(hover).toMatch(/A field of .?structs\.Job.?: \S/);
    const span = (range: Range) => [range.start.character, range.end.character];
    const g = (at: number) => [at, at + 1];
    expect(outcome!.highlights.map((highlight) => span(highlight.range)).sort((a, b) => a[0]! - b[0]!)).toEqual([g(AT.declaration), g(AT.firstUse), g(AT.secondUse)]);
    const definition = Array.isArray(outcome!.definition) ? outcome!.definition[0]! : outcome!.definition;
    expect(span(definition.range)).toEqual(g(AT.declaration));
    expect(outcome!.renamed).toBe(FEATURES_FILTER.replaceAll(/\bg\b/g, "tg"));
    expect(outcome!.messages).not.toMatch(/traceback|E5108|Error/i);
  }, 180_000);

  it("says bexpr is not on PATH, once, without a Lua traceback", () => {
    // No client can start: the harness waits a moment for diagnostics that never come.
    const { outcome, stderr } = runNeovim("without-bexpr", pathWithoutBexpr(), 1_000);
    expect(outcome, stderr).toBeDefined();
    expect(outcome!.waited).toBe(false);
    expect(outcome!.messages).toContain("bexpr is not on PATH");
    expect(`${outcome!.messages}${stderr}`).not.toMatch(/traceback|E5108/i);
  }, 180_000);
});
