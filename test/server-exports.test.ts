/**
 * What `bexpr/server` exports is its documented API: every constant it exports (a limit, a
 * default, a name of the reference) is named in the docs, so that none is public by accident.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as server from "../src/server/index.js";

const ROOT = join(import.meta.dirname, "..");
/** Every word of the docs (README.md, docs/*.md). */
const DOCUMENTED = new Set(
  [join(ROOT, "README.md"), ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => join(ROOT, "docs", name))]
    .map((path) => readFileSync(path, "utf8"))
    .join("\n")
    .match(/\w+/g),
);

const constants = Object.keys(server).filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name));

describe("bexpr/server's exports", () => {
  it("hold some constants (the check below has something to check)", () => {
    expect(constants.length).toBeGreaterThan(20);
  });

  it.each(constants)("names %s in the docs", (name) => {
    expect(DOCUMENTED.has(name), `${name} is not named in README.md or docs/`).toBe(true);
  });

  it.each(["JITTER_FRACTION", "ASYNC_GZIP_BYTES", "CLIENT_DESCRIPTIONS", "FRAMING_HEADERS", "ANY_HOST", "isLoopbackAddress"])("keeps the tuning constant %s to itself", (name) => {
    expect(Object.keys(server)).not.toContain(name);
  });
});
