/**
 * What the editor tests share: the snippets as docs/editors.md gives them (the tests run the text
 * a user copies, not a copy of it), a `bexpr` command on a PATH of the test's own, and whether an
 * editor is installed (`.ci/run` installs Debian's; elsewhere a missing editor skips its test,
 * unless BEXPR_TEST_REQUIRE_EDITORS is set).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const GUIDE = readFileSync(join(ROOT, "docs/editors.md"), "utf8");

/** The first code block of `language` in docs/editors.md after the text `after`. */
export function snippet(after: string, language: string): string {
  const at = GUIDE.indexOf(after);
  if (at < 0) throw new Error(`docs/editors.md has no ${JSON.stringify(after)}`);
  const fence = "```" + language + "\n";
  const start = GUIDE.indexOf(fence, at);
  if (start < 0) throw new Error(`docs/editors.md has no ${language} block after ${JSON.stringify(after)}`);
  const end = GUIDE.indexOf("\n```", start + fence.length);
  return GUIDE.slice(start + fence.length, end + 1);
}

/** Whether `command` runs here (`command --version` exits 0). */
export function installed(command: string): boolean {
  const found = spawnSync(command, ["--version"], { encoding: "utf8" }).status === 0;
  if (!found && process.env.BEXPR_TEST_REQUIRE_EDITORS === "1") throw new Error(`${command} is not installed, and BEXPR_TEST_REQUIRE_EDITORS=1 asks for it (.ci/run installs it)`);
  return found;
}

/** A directory holding a `bexpr` command that runs the built CLI, to put first on a PATH. */
export function bexprOnPath(directory: string): string {
  const bin = join(directory, "bin");
  mkdirSync(bin, { recursive: true });
  const command = join(bin, "bexpr");
  writeFileSync(command, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, "dist/cli.js"))} "$@"\n`);
  chmodSync(command, 0o755);
  return bin;
}

/** A PATH without any directory that holds a `bexpr` command. */
export function pathWithoutBexpr(): string {
  return (process.env.PATH ?? "")
    .split(":")
    .filter((directory) => spawnSync("test", ["-x", join(directory, "bexpr")]).status !== 0)
    .join(":");
}
