/**
 * The seams of src/server: one direction for its folders (each imports only those below it, held
 * here for every import), no cycle of files, fastify in the HTTP layer only, and the domain's
 * refusals given their status by kind, in one place.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { conflict, denied, invalid, missing, Refusal } from "../../src/server/base/errors.js";
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

/**
 * The direction of src/server's folders, top to bottom, stated once: a file imports files of its
 * own folder and of the rows below its own, never of a row above (not even a type). The folders
 * of one row are siblings and import nothing of each other. Below them all: the engine (src/
 * outside server/), then src/go/, Go's formats, which imports only itself and src/json.ts.
 */
const DIRECTION: readonly { readonly folders: readonly string[]; readonly what: string; readonly oneFolder?: true }[] = [
  { folders: ["server/index.ts", "server/agent.ts", "server/test-fixture.ts"], what: "bexpr/server and startAgent, which puts the layers together", oneFolder: true },
  { folders: ["server/http/"], what: "the HTTP adapter: the only layer that imports fastify" },
  { folders: ["server/options.ts"], what: "the agent's options, resolved and checked" },
  { folders: ["server/control/"], what: "what the test harness controls: faults, journal, leader, fixtures, snapshots, state control, demo data" },
  { folders: ["server/list/"], what: "the list pipeline" },
  { folders: ["server/scheduler/", "server/domain/", "server/metrics/"], what: "the scheduler; the agent's own concerns (ACLs, namespaces, events, members); its metrics" },
  { folders: ["server/state/"], what: "the store and its backends" },
  { folders: ["server/base/"], what: "errors, the clock, header names" },
];

/** The row of `file` (a path relative to src/), or undefined for a file outside src/server. */
function rowOf(file: string): number | undefined {
  const row = DIRECTION.findIndex(({ folders }) => folders.some((folder) => (folder.endsWith("/") ? file.startsWith(folder) : file === folder)));
  return row === -1 ? undefined : row;
}

/** Which folder of its row a file is in (the root's files are one). */
function folderOf(file: string): string {
  const { folders, oneFolder } = DIRECTION[rowOf(file)!]!;
  return oneFolder ? folders.join(" ") : folders.find((folder) => (folder.endsWith("/") ? file.startsWith(folder) : file === folder))!;
}

/**
 * The parts of src/ outside the server that use it: the command line (`bexpr agent` starts it)
 * and the web UI the agent serves (which reads its header names). The engine is the rest.
 */
const SERVER_USERS = ["cli/", "cli.ts", "ui/"];

/** Every import of the project's own files (type imports included): `[from, to]`, paths relative to src/. */
function projectImports(): [string, string][] {
  return sources(SRC).flatMap((file) => importsOf(file).filter((to) => to.endsWith(".ts")).map((to): [string, string] => [file, to]));
}

/**
 * The cycles of files that import each other, with the reason each is kept; any other is a
 * failure. (None is kept: the last ones were broken by moving the types both sides read below
 * both, or an interface of what one side needs, `StreamBroker`.)
 */
const KEPT_CYCLES: readonly { readonly files: readonly string[]; readonly why: string }[] = [];

/** The strongly connected components of more than one file in the import graph (Tarjan). */
function fileCycles(): string[][] {
  const edges = new Map<string, string[]>();
  for (const [from, to] of projectImports()) edges.set(from, [...(edges.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const cycle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      cycle.push(member);
    } while (member !== file);
    if (cycle.length > 1) cycles.push(cycle.sort());
  };
  for (const file of sources(SRC)) if (!index.has(file)) visit(file);
  return cycles;
}

describe("the direction of src/server's folders", () => {
  it("names folders and files that exist, and every file of src/server is in one", () => {
    for (const { folders } of DIRECTION) for (const folder of folders) expect(sources(SRC).some((file) => (folder.endsWith("/") ? file.startsWith(folder) : file === folder)), folder).toBe(true);
    expect(sources(SERVER).filter((file) => rowOf(file) === undefined)).toEqual([]);
  });

  it("has every import point down, or within its folder (types included)", () => {
    const upward = projectImports()
      .filter(([from, to]) => rowOf(from) !== undefined && rowOf(to) !== undefined)
      .filter(([from, to]) => folderOf(from) !== folderOf(to) && rowOf(to)! <= rowOf(from)!)
      .map(([from, to]) => `${from} -> ${to}`);
    expect(upward).toEqual([]);
  });

  it("has the engine import nothing of the server", () => {
    const engine = (file: string) => rowOf(file) === undefined && !SERVER_USERS.some((user) => (user.endsWith("/") ? file.startsWith(user) : file === user));
    expect(projectImports().filter(([from, to]) => engine(from) && rowOf(to) !== undefined).map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it("has src/go/ import only itself and src/json.ts", () => {
    expect(projectImports().filter(([from, to]) => from.startsWith("go/") && !to.startsWith("go/") && to !== "json.ts").map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it("has no cycle of files but those kept, each with its reason", () => {
    expect(fileCycles()).toEqual(KEPT_CYCLES.map(({ files }) => [...files].sort()));
    for (const { why } of KEPT_CYCLES) expect(why).not.toBe("");
  });

  // The root puts the layers together (startAgent), and so names the HTTP adapter.
  it.each(sources(SRC).filter((file) => !file.startsWith("server/http/") && rowOf(file) !== 0))("%s imports neither fastify nor the HTTP layer", (file) => {
    expect(importsOf(file).filter((from) => from === "fastify" || from.startsWith("@fastify/") || from.startsWith("server/http/"))).toEqual([]);
  });
});

describe("the domain's refusals", () => {
  it.each([
    [invalid("job ID is required"), 400],
    [denied(), 403],
    [missing("Namespace not found"), 404],
    [conflict("variable doesn't hold a lock"), 409],
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
