/**
 * The seams of src/server: the domain (registration, the scheduler, namespaces, ACLs, decoding,
 * the state store) never names an HTTP status or imports the web framework; its refusals get
 * their status by kind, in one place.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { denied, invalid, missing, Refusal } from "../../src/server/base/errors.js";
import { HttpError, REFUSAL_STATUS, responseOf } from "../../src/server/http/errors.js";

const SRC = join(import.meta.dirname, "../../src");
const SERVER = join(SRC, "server");

/** Every TypeScript file under `dir`, with its path relative to src/. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => relative(SRC, join(dir, file)));
}

/** The modules a file imports, as paths relative to src/ (packages as named). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  return [...text.matchAll(/^(?:import|export)[^;]*?from "([^"]+)";$/gm), ...text.matchAll(/import\("([^"]+)"\)/g)].map(([, from]) =>
    from!.startsWith(".") ? relative(SRC, join(SRC, dirname(file), from!)).replace(/\.js$/, ".ts") : from!,
  );
}

/** The layers of src/server, and what each may import from the others. */
const LAYERS = {
  "server/http/": "the HTTP adapter: the only layer that imports fastify",
  "server/list/": "the list pipeline",
  "server/domain/": "registration, the scheduler, namespaces, ACLs",
  "server/state/": "the store",
  "go/": "Go compatibility",
} as const;

describe("the layers of src/server", () => {
  it("are folders that exist", () => {
    for (const layer of Object.keys(LAYERS)) expect(sources(join(SRC, layer)).length).toBeGreaterThan(0);
  });

  // server/index.ts puts the layers together (startAgent), and so names the HTTP adapter.
  it.each(sources(SRC).filter((file) => !file.startsWith("server/http/") && file !== "server/index.ts"))("%s imports neither fastify nor the HTTP layer", (file) => {
    expect(importsOf(file).filter((from) => from === "fastify" || from.startsWith("@fastify/") || from.startsWith("server/http/"))).toEqual([]);
  });

  it.each(sources(join(SRC, "server/state")))("%s (the store) imports nothing of the layers above it but types", (file) => {
    const text = readFileSync(join(SRC, file), "utf8");
    const valueImports = [...text.matchAll(/^import (?!type )[^;]*?from "([^"]+)";$/gm)].map(([, from]) => relative(SRC, join(SRC, dirname(file), from!)));
    expect(valueImports.filter((from) => /^server\/(list|domain|metrics)\//.test(from))).toEqual([]);
  });

  it.each([...sources(join(SRC, "server/domain")), ...sources(join(SRC, "go"))])("%s does not import the list pipeline", (file) => {
    expect(importsOf(file).filter((from) => from.startsWith("server/list/"))).toEqual([]);
  });
});

describe("the domain's refusals", () => {
  it.each([
    [invalid("job ID is required"), 400],
    [denied(), 403],
    [missing("Namespace not found"), 404],
    [new Refusal("unreachable", "No path to region"), 500],
  ])("%s becomes status %i, with its reason as the body", (refusal, status) => {
    expect(refusal).toBeInstanceOf(Refusal);
    expect(responseOf(refusal)).toEqual({ status, message: refusal.message });
    expect(REFUSAL_STATUS[refusal.kind]).toBe(status);
  });

  it("leaves the HTTP layer's own errors their status, and anything else to the 500 handler", () => {
    expect(responseOf(new HttpError(415, "Prometheus is not enabled"))).toEqual({ status: 415, message: "Prometheus is not enabled" });
    expect(responseOf(new Error("a bug"))).toBeUndefined();
  });
});
