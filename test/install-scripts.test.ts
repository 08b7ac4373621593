/**
 * npm 11 warns on `npm ci` about every dependency whose install script `allowScripts` in
 * package.json does not cover (and npm 12 skips those scripts): every package of the lock file
 * that has one is approved there by name. Not pinned to a version: the lock file records no
 * download addresses, and npm takes a package's identity for a pinned entry from them, so a pinned
 * entry never matches (npm ci still warned with `esbuild@0.28.2` approved).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(new URL("package-lock.json", ROOT), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };

/** The name of every package in the lock file that runs an install script. */
const withScripts = Object.entries(lock.packages)
  .filter(([path, entry]) => path !== "" && entry.hasInstallScript === true)
  .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
  .sort();

describe("install scripts", () => {
  it("lists the dependencies that run one", () => {
    expect(withScripts.length).toBeGreaterThan(0);
  });

  it.each(withScripts)("approves %s in allowScripts", (name) => {
    expect(manifest.allowScripts?.[name]).toBe(true);
  });

  it("approves nothing the lock file does not install", () => {
    expect(Object.keys(manifest.allowScripts ?? {}).sort()).toEqual(withScripts);
  });
});
