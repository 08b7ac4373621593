/**
 * docs/editors.md's Emacs set-up (the major mode, then Eglot), run in Emacs 28 with Debian's
 * elpa-eglot against the real `bexpr lsp --stdio`: Eglot connects for a .bexpr file, Flymake shows
 * the server's diagnostics, and hover comes as plain text, as this Eglot asks without
 * markdown-mode. Emacs runs in batch mode; the harness does what an interactive start does by
 * itself: it activates the installed packages, runs the first command's hooks (where
 * `eglot-ensure` connects) and starts Flymake (which waits for a window otherwise).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bexprOnPath, installed, snippet } from "./support.js";

const HAVE_EMACS = installed("emacs");
const work = mkdtempSync(join(tmpdir(), "bexpr-emacs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HARNESS = `
(run-hooks 'post-command-hook)
(flymake-start)
(let ((deadline (+ (float-time) 60)))
  (while (and (< (float-time) deadline) (null (flymake-diagnostics)))
    (accept-process-output nil 0.1)))
(princ (format "connected: %S\\n" (and (eglot-current-server) t)))
(dolist (diagnostic (flymake-diagnostics))
  (princ (format "diagnostic: %s\\n" (replace-regexp-in-string "\\n" " " (flymake-diagnostic-text diagnostic)))))
(when (eglot-current-server)
  (goto-char (point-min))
  (let ((contents (plist-get (jsonrpc-request (eglot-current-server) :textDocument/hover (eglot--TextDocumentPositionParams)) :contents)))
    (princ (format "hover kind: %s\\nhover: %s\\n" (plist-get contents :kind) (replace-regexp-in-string "\\n" " " (plist-get contents :value))))))
(kill-emacs 0)
`;

describe.skipIf(!HAVE_EMACS)("docs/editors.md's Emacs mode and Eglot snippets, in Emacs", () => {
  it("connects Eglot for a .bexpr file: Flymake shows the diagnostics, hover is plain text", () => {
    const project = join(work, "project");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "init.el"), `${snippet("## Emacs", "elisp")}\n${snippet("### Eglot", "elisp")}`);
    writeFileSync(join(project, "harness.el"), HARNESS);
    writeFileSync(join(project, "filter.bexpr"), 'Stauts == "running"\n');
    const result = spawnSync("emacs", ["--batch", "--eval", "(package-activate-all)", "-l", "init.el", "filter.bexpr", "-l", "harness.el"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, PATH: `${bexprOnPath(work)}:${process.env.PATH ?? ""}`, HOME: project },
      timeout: 120_000,
    });
    const printed = `${result.stdout}${result.stderr}`;
    expect(printed).toContain("connected: t");
    expect(printed).toContain('diagnostic: bexpr [unknown_field]: the object has no field "Stauts" hint: did you mean "Status"?');
    expect(printed).toContain("hover kind: plaintext");
    expect(printed).toMatch(/hover: Stauts: not a field of structs\.Job/);
    expect(printed).not.toMatch(/hover: .*(\*\*|`)/);
  }, 180_000);
});
