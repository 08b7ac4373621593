/**
 * docs/editors.md's Neovim 0.7 snippet (Debian 12's Neovim), run in headless Neovim against the
 * real `bexpr lsp --stdio`: the file type is set, the client starts, diagnostics arrive, the
 * samples given in `init_options` reach completion, and without `bexpr` on the PATH the user is
 * told so, with no Lua traceback.
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

/** Opens `filter.bexpr` in headless Neovim with the snippet as init.lua, in a project of its own. */
function runNeovim(name: string, path: string, waitMs = 60_000): { outcome: Outcome | undefined; stderr: string } {
  const project = join(work, name);
  mkdirSync(join(project, "fixtures"), { recursive: true });
  writeFileSync(join(project, "init.lua"), snippet("Debian 12 ships Neovim 0.7", "lua"));
  writeFileSync(join(project, "fixtures/jobs.json"), JSON.stringify([{ ID: "web", Status: "running", Meta: { owner: "team-sample" } }]));
  writeFileSync(join(project, "filter.bexpr"), 'Status == "running" and\nMeta.owner == \n');
  const out = join(project, "out.json");
  writeFileSync(join(project, "harness.lua"), `local arg_out = ${JSON.stringify(out)}\nlocal arg_wait = ${waitMs}\n${HARNESS}`);
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

  it("says bexpr is not on PATH, once, without a Lua traceback", () => {
    // No client can start: the harness waits a moment for diagnostics that never come.
    const { outcome, stderr } = runNeovim("without-bexpr", pathWithoutBexpr(), 1_000);
    expect(outcome, stderr).toBeDefined();
    expect(outcome!.waited).toBe(false);
    expect(outcome!.messages).toContain("bexpr is not on PATH");
    expect(`${outcome!.messages}${stderr}`).not.toMatch(/traceback|E5108/i);
  }, 180_000);
});
