/**
 * The published package, tested from outside with the real tools: `npm pack` of the project (the
 * dist/ that `npm test`'s own build made: prepack is that build), the tarball's contents, and a fresh consumer project that installs the tarball from the
 * npm cache `npm ci` filled (no network), requires and imports it, runs its command, and
 * type-checks against it under each `moduleResolution`.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, relative, resolve, sep } from "node:path";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installCommand, OPTIONAL_PACKAGES, type OptionalPart } from "../src/optional-packages.js";

const ROOT = resolve(import.meta.dirname, "..");
const project = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
const projectLock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as PackageLock;

interface PackageJson {
  name: string;
  version: string;
  license: string;
  engines: { node: string };
  exports: Record<string, unknown>;
  keywords?: string[];
  sideEffects?: boolean;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  types: string;
  typesVersions?: Record<string, Record<string, string[]>>;
  bin: Record<string, string>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  overrides?: unknown;
}

interface LockEntry {
  dev?: boolean;
  peer?: boolean;
  devOptional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

interface PackageLock {
  packages: Record<string, LockEntry>;
}

/** What `npm pack --json` reports of one tarball. */
interface PackResult {
  filename: string;
  integrity: string;
}

/** Every package an optional part of bexpr runs with (the agent, its stores, the language server). */
const EVERY_OPTIONAL_PACKAGE = Object.values(OPTIONAL_PACKAGES).flat();

/** The peers of bexpr/codemirror: CodeMirror's packages, which the page brings. */
const CODEMIRROR_PEERS = Object.keys(project.peerDependencies).filter((name) => /^@(codemirror|lezer)\//.test(name));

/**
 * The environment of the npm and node commands run here: without the variables npm sets for the
 * script running these tests (npm_config_local_prefix would point them back at this project), but
 * with the cache and user config that `npm ci` used.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const isNpmVariable = /^npm_/i.test(name) || name === "INIT_CWD";
    if (!isNpmVariable || (/^npm_config_/i.test(name) && !/^npm_config_(local|global)_prefix$/i.test(name))) env[name] = value;
  }
  return env;
}

/**
 * The longest a command here may run: `npm ci` of the consumer and tsc take several seconds alone
 * on a 2-core machine, several times that with the rest of the suite beside it.
 */
const COMMAND_TIMEOUT_MS = 300_000;

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: childEnv(), encoding: "utf8", timeout: COMMAND_TIMEOUT_MS });
}

/** Runs a command that must succeed; its output, or an error with everything it printed. */
function runOk(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const result = run(command, args, cwd);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

let work: string;
let tarball: PackResult;
/** The unpacked tarball (`package/`). */
let unpacked: string;
let shipped: Set<string>;
let consumer: string;
let install: SpawnSyncReturns<string>;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "bexpr-packaging-"));
  // Without the prepack script: it is `npm run build`, which `npm test` ran before these tests
  // (pretest), from a clean dist/; building again here cost 25 s of CPU, and would remove the
  // dist/ the tests beside this one read. npm only reads the project to pack it.
  const pack = runOk("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], ROOT);
  [tarball] = JSON.parse(pack.stdout) as [PackResult];

  unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  runOk("tar", ["-xzf", join(work, tarball.filename), "-C", unpacked], work);
  unpacked = join(unpacked, "package");
  shipped = new Set(filesUnder(unpacked));

  consumer = join(work, "consumer");
  mkdirSync(consumer);
  // The consumer of the README's recipe for everything: bexpr and the packages of every optional part.
  writeConsumerProject(consumer, `file:../${tarball.filename}`, tarball.integrity, EVERY_OPTIONAL_PACKAGE);
  install = run("npm", ["ci", "--offline", "--engine-strict", "--no-audit", "--no-fund"], consumer);
}, 2 * COMMAND_TIMEOUT_MS);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/**
 * A consumer that depends on the tarball and on `peers` (packages bexpr runs with, which a project
 * installs beside it, at the versions this project pins). `npm install` of a new dependency reads
 * full package documents from the registry, which `npm ci` does not cache; so the consumer gets a
 * lockfile, made of the entries of this project's tree that the peers need (the tree npm resolved
 * for them, as it would for a consumer while package.json has no overrides), which `npm ci`
 * installs from the cache alone.
 */
function writeConsumerProject(directory: string, spec: string, integrity: string, peers: readonly string[] = []): void {
  const manifest = { name: "consumer", version: "1.0.0", private: true, dependencies: { bexpr: spec, ...Object.fromEntries(peers.map((name) => [name, project.devDependencies[name]!])) } };
  const packages: PackageLock["packages"] = {
    "": manifest,
    "node_modules/bexpr": {
      version: project.version,
      resolved: spec,
      integrity,
      license: project.license,
      dependencies: project.dependencies,
      peerDependencies: project.peerDependencies,
      peerDependenciesMeta: project.peerDependenciesMeta,
      bin: project.bin,
      engines: project.engines,
    },
  };
  for (const path of lockClosure(peers)) {
    const { dev, peer, devOptional, ...entry } = projectLock.packages[path]!;
    packages[path] = devOptional === true ? { ...entry, optional: true } : entry;
  }
  writeFileSync(join(directory, "package.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(directory, "package-lock.json"), JSON.stringify({ name: "consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages }, null, 2));
}

/** The paths in this project's lockfile of `names` and of everything they depend on, found as Node finds them (nested first, then up). */
function lockClosure(names: readonly string[]): Set<string> {
  const found = new Set<string>();
  const locate = (from: string, name: string): string | undefined => {
    for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf("/node_modules/")))) {
      const path = at === "" ? `node_modules/${name}` : `${at}/node_modules/${name}`;
      if (projectLock.packages[path] !== undefined) return path;
      if (at === "") return undefined;
    }
  };
  const visit = (from: string, name: string, optional: boolean) => {
    const path = locate(from, name);
    if (path === undefined) {
      if (optional) return;
      throw new Error(`${name} (needed from ${from || "the root"}) is not in package-lock.json`);
    }
    if (found.has(path)) return;
    found.add(path);
    const entry = projectLock.packages[path]!;
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(path, dependency, false);
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) visit(path, dependency, true);
    const peerMeta = (entry.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
    for (const dependency of Object.keys((entry.peerDependencies ?? {}) as Record<string, string>)) visit(path, dependency, peerMeta[dependency]?.optional === true);
  };
  for (const name of names) visit("", name, false);
  return found;
}

describe("npm pack", () => {
  it("ships LICENSE with the full text of the license package.json names (MPL-2.0)", () => {
    expect(project.license).toBe("MPL-2.0");
    const license = readFileSync(join(unpacked, "LICENSE"), "utf8");
    expect(license).toMatch(/^Mozilla Public License Version 2\.0\n/);
    expect(license).toContain("Exhibit B - \"Incompatible With Secondary Licenses\" Notice");
  });

  it("ships the README, the CHANGELOG and the error reference the language server links to", () => {
    expect(shipped).toContain("README.md");
    expect(shipped).toContain("CHANGELOG.md");
    expect(shipped).toContain("docs/errors.md");
  });

  it("ships every file package.json points at: exports, types, typesVersions, bin", () => {
    type Target = string | { readonly [condition: string]: Target };
    const targets = (target: Target): string[] => (typeof target === "string" ? [target] : Object.values(target).flatMap(targets));
    const conditions = Object.values(project.exports as Record<string, Target>).flatMap(targets);
    const typesVersions = Object.values(project.typesVersions ?? {}).flatMap((paths) => Object.values(paths).flat());
    const pointedAt = [...conditions, project.types, ...typesVersions, ...Object.values(project.bin)];
    for (const path of pointedAt) expect(shipped, path).toContain(posix.normalize(path));
  });

  it("ships its build: dist/, made by the prepack script, which is the build npm test runs first", () => {
    expect(project.scripts?.prepack).toBe("npm run build");
    expect(project.scripts?.pretest).toBe("npm run build");
    expect([...shipped].filter((path) => path.startsWith("dist/")).length).toBeGreaterThan(20);
    expect(shipped).toContain("dist/index.js");
  });

  it("ships no source map or sourceMappingURL that points at a file it does not ship", () => {
    const problems: string[] = [];
    for (const path of shipped) {
      const text = readFileSync(join(unpacked, path), "utf8");
      if (path.endsWith(".map")) {
        const { sources } = JSON.parse(text) as { sources: string[] };
        for (const source of sources) {
          const target = posix.join(posix.dirname(path), source);
          if (!shipped.has(target)) problems.push(`${path} → ${target}`);
        }
      }
      for (const [, url] of text.matchAll(/^\/\/# sourceMappingURL=(\S+)$/gm)) {
        const target = posix.join(posix.dirname(path), url!);
        if (!shipped.has(target)) problems.push(`${path} → ${target}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("strips @internal members from every .d.ts", () => {
    const declarations = [...shipped].filter((path) => path.endsWith(".d.ts"));
    expect(declarations).toContain("dist/index.d.ts");
    const withInternal = declarations.filter((path) => readFileSync(join(unpacked, path), "utf8").includes("@internal"));
    expect(withInternal).toEqual([]);
  });

  it("ships one rolled-up declaration file per entry point, naming no package a consumer does not install", () => {
    const declarations = [...shipped].filter((path) => path.endsWith(".d.ts")).sort();
    expect(declarations).toEqual(["dist/codemirror/index.d.ts", "dist/index.d.ts", "dist/server/index.d.ts", "dist/sql/index.d.ts"]);
    const installable = new Set(Object.keys(project.peerDependencies));
    for (const path of declarations) {
      const imported = [...readFileSync(join(unpacked, path), "utf8").matchAll(/^import .* from ['"]([^'"]+)['"];?$/gm)].map((match) => match[1]!);
      const packages = imported.map((specifier) => (specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!));
      expect(packages.filter((name) => !installable.has(name) && !name.startsWith(".")), path).toEqual([]);
    }
  });

  it("has no script that npm runs when a consumer installs it (prepare, preinstall, install, postinstall)", () => {
    const shippedPackage = JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8")) as PackageJson;
    const installScripts = Object.keys(shippedPackage.scripts ?? {}).filter((name) => /^(pre|post)?(install|prepare)$/.test(name));
    expect(installScripts).toEqual([]);
  });

  it("ships grammar/diagrams.html with its scripts and stylesheet inlined, so it works offline", () => {
    const html = readFileSync(join(unpacked, "grammar/diagrams.html"), "utf8");
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*stylesheet/i);
    expect(html).toContain("drawDiagramsFromSerializedGrammar");
    expect(html).toContain("railroad");
  });
});

describe("a fresh consumer project that installs the tarball", () => {
  it("gets the project's resolution of bexpr's dependencies, which is a consumer's only while package.json has no overrides", () => {
    // npm applies overrides only in the project that declares them, never for its consumers.
    expect(project.overrides).toBeUndefined();
  });

  it("installs it offline from the npm cache, with engine-strict and no EBADENGINE warning", () => {
    expect(install.stderr).not.toMatch(/EBADENGINE/);
    // ENOTCACHED here means the npm cache lacks a package of the lockfile: run npm ci first.
    expect(install.status, install.stderr).toBe(0);
    expect(existsSync(join(consumer, "node_modules/bexpr/dist/index.js"))).toBe(true);
  });

  it("requires bexpr, bexpr/server and bexpr/sql from CommonJS", () => {
    const script = `
      const { compileFilter } = require("bexpr");
      const { startAgent } = require("bexpr/server");
      const { toSql } = require("bexpr/sql");
      console.log(compileFilter('Status == "running"').test({ Status: "running" }), typeof startAgent, toSql('Status == "running"').params.join(","));`;
    const result = runOk(process.execPath, ["-e", script], consumer);
    expect(result.stdout.trim()).toBe("true function Status,running");
  });

  it("imports bexpr/server and serves the API on a real socket", () => {
    const script = `
      const { startAgent } = await import("bexpr/server");
      const agent = await startAgent({ port: 0, logLevel: "silent" });
      try {
        const response = await fetch(agent.url + "/v1/jobs?filter=" + encodeURIComponent('Status == "running"'));
        console.log(response.status, (await response.json()).length > 0);
      } finally {
        await agent.close();
      }`;
    const result = runOk(process.execPath, ["--input-type=module", "-e", script], consumer);
    expect(result.stdout.trim()).toBe("200 true");
  });

  it("cannot be required where require(esm) is off, as before Node 20.19 and 22.12", () => {
    const result = run(process.execPath, ["--no-experimental-require-module", "-e", 'require("bexpr")'], consumer);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("ERR_REQUIRE_ESM");
  });

  it("installs bexpr alone by default, and names the command that adds an optional part's packages when that part is asked for", () => {
    // Nothing to leave out with --omit=optional (which would drop other packages' optional builds too):
    // the packages of the agent and the language server are optional peers, installed by the project that uses them.
    expect(project.optionalDependencies).toBeUndefined();
    expect(Object.keys(project.peerDependencies).sort()).toEqual([...EVERY_OPTIONAL_PACKAGE, ...CODEMIRROR_PEERS].sort());
    for (const name of Object.keys(project.peerDependencies)) expect(project.peerDependenciesMeta[name], name).toEqual({ optional: true });
    const engineOnly = join(work, "engine-only");
    mkdirSync(engineOnly);
    writeConsumerProject(engineOnly, `file:../${tarball.filename}`, tarball.integrity);
    runOk("npm", ["ci", "--offline", "--no-audit", "--no-fund"], engineOnly);
    const installed = readdirSync(join(engineOnly, "node_modules"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .flatMap((entry) => (entry.name.startsWith("@") ? readdirSync(join(engineOnly, "node_modules", entry.name)).map((name) => `${entry.name}/${name}`) : [entry.name]));
    // bexpr alone: the engine's own packages (chevrotain, re2js, lossless-json) are bundled into it.
    expect(installed).toEqual(["bexpr"]);
    const script = `import("bexpr").then(({ compileFilter }) => console.log(compileFilter('Status == "running"').test({ Status: "running" })))`;
    expect(runOk(process.execPath, ["-e", script], engineOnly).stdout.trim()).toBe("true");
    const bin = join(engineOnly, "node_modules/.bin/bexpr");
    expect(runOk(bin, ["check", 'Status == "running"'], engineOnly).stdout).toBe("ok\n");
    const missing = (part: OptionalPart, name: string) => `${part} needs ${name} beside bexpr, and it is not installed: ${installCommand([part])}`;
    const agent = run(bin, ["agent", "--port", "0"], engineOnly);
    expect(agent.status).toBe(1);
    expect(agent.stderr).toContain(missing("the agent", "fastify"));
    const lsp = run(bin, ["lsp", "--stdio"], engineOnly);
    expect(lsp.status).toBe(1);
    expect(lsp.stderr).toContain(missing("the language server", "vscode-languageserver"));
    // Without their packages the two still answer --help and --version, as every command does (they exited 1 with the missing-package error).
    for (const command of ["agent", "lsp"]) {
      const help = run(bin, [command, "--help"], engineOnly);
      expect([help.status, help.stderr], command).toEqual([0, ""]);
      expect(help.stdout).toMatch(new RegExp(`^Usage: bexpr ${command} `));
      const version = run(bin, [command, "--version"], engineOnly);
      expect([version.status, version.stdout.trim()], command).toEqual([0, project.version]);
    }
    const started = run(process.execPath, ["--input-type=module", "-e", 'const { startAgent } = await import("bexpr/server"); await startAgent({ port: 0, logLevel: "silent" });'], engineOnly);
    expect(started.status).toBe(1);
    // The first of the agent's packages it loads is named; the command installs them all.
    const named = /^MissingPackageError: the agent needs (\S+) beside bexpr, and it is not installed: (.*)$/m.exec(started.stderr);
    expect(named, started.stderr).not.toBeNull();
    expect(OPTIONAL_PACKAGES["the agent"]).toContain(named![1]);
    expect(named![2]).toBe(installCommand(["the agent"]));
  }, 2 * COMMAND_TIMEOUT_MS);

  it("names the packages to install when bexpr/codemirror is imported without CodeMirror (its optional peers)", () => {
    const result = run(process.execPath, ["--input-type=module", "-e", 'await import("bexpr/codemirror")'], consumer);
    expect(result.status).toBe(1);
    const peers = CODEMIRROR_PEERS;
    const named = /^Error: bexpr\/codemirror needs CodeMirror 6 beside it, and (\S+) is not installed: npm install (.*)$/m.exec(result.stderr);
    expect(named, result.stderr).not.toBeNull();
    expect(peers).toContain(named![1]);
    expect(named![2]).toBe(peers.join(" "));
  });

  it("names them for require(\"bexpr/codemirror\") too, the CommonJS way in (it gave Node's raw ERR_MODULE_NOT_FOUND)", () => {
    const result = run(process.execPath, ["-e", 'require("bexpr/codemirror")'], consumer);
    expect(result.status).toBe(1);
    const named = /^Error: bexpr\/codemirror needs CodeMirror 6 beside it, and (\S+) is not installed: npm install (.*)$/m.exec(result.stderr);
    expect(named, result.stderr).not.toBeNull();
    expect(named![2]).toBe(CODEMIRROR_PEERS.join(" "));
  });

  it("has classes that print their own names (constructor.name, the stack's first line)", () => {
    const script = `const { compileFilter, FilterSyntaxError } = require("bexpr");
      try { compileFilter("a == 1").test({}); } catch (error) { console.log(error.constructor.name, error.stack.split(":")[0]); }
      try { compileFilter("a =="); } catch (error) { console.log(error.constructor.name, error instanceof FilterSyntaxError); }
      console.log(compileFilter("a == 1").constructor.name);`;
    expect(runOk(process.execPath, ["-e", script], consumer).stdout.split("\n")).toEqual(["FilterEvaluationError FilterEvaluationError", "FilterSyntaxError true", "Filter", ""]);
  });

  it("says it has no side effects, so that a bundler keeps only what is used, and a bundle of it runs", async () => {
    expect(project.sideEffects).toBe(false);
    expect(project.keywords).toEqual(expect.arrayContaining(["filter", "nomad", "codemirror", "language-server"]));
    const { build } = await import("esbuild");
    writeFileSync(join(consumer, "app.mjs"), 'import { compileFilter } from "bexpr";\nconsole.log(compileFilter(\'Status == "running"\').test({ Status: "running" }));\n');
    await build({ entryPoints: [join(consumer, "app.mjs")], bundle: true, platform: "node", format: "esm", outfile: join(consumer, "app.bundle.mjs"), logLevel: "silent", absWorkingDir: consumer });
    expect(runOk(process.execPath, [join(consumer, "app.bundle.mjs")], consumer).stdout.trim()).toBe("true");
  });

  it("runs the bexpr command it installs", () => {
    const result = runOk(join(consumer, "node_modules/.bin/bexpr"), ["fmt", 'Status=="running"'], consumer);
    expect(result.stdout.trim()).toBe('Status == "running"');
  });

  /** Uses of both entry points, with errors the types must catch (so `any` would fail the check). */
  const USES = `
import { compileFilter, Filter, FilterSyntaxError } from "bexpr";
import { startAgent, type Agent } from "bexpr/server";
import { toSql, type SqlFilter } from "bexpr/sql";
import pg from "pg";

interface Job { Status: string }
export const pushed: SqlFilter = toSql('Status == "running"', { column: "doc" });
// The README's pushdown with pg's own types (params were readonly: TS2769 on client.query).
export async function pushDown(client: pg.Client): Promise<unknown[]> {
  const { sql, params } = toSql('Status == "running"', { column: "doc" });
  const { rows } = await client.query(\`SELECT doc::text AS doc FROM jobs WHERE \${sql}\`, params);
  return rows;
}
export const running: Filter<Job> = compileFilter<Job>('Status == "running"');
export const accepted: boolean = running.test({ Status: "running" });
export const agent: Promise<Agent> = startAgent({ port: 0, logLevel: "silent" });
export const isSyntaxError = (error: unknown): boolean => error instanceof FilterSyntaxError;
// @ts-expect-error: a filter is source text or an AST
compileFilter(42);
// @ts-expect-error: startAgent takes options, not a port
startAgent(4646);
// @ts-expect-error: toSql takes a filter, not a number
toSql(42);
// @ts-expect-error: a Filter comes from compileFilter
new Filter();
`;

  /** A CommonJS module under node16: bexpr is ESM, so it comes through import(). */
  const DYNAMIC_IMPORT = `
export async function isRunning(job: { Status: string }): Promise<boolean> {
  const { compileFilter } = await import("bexpr");
  const { startAgent } = await import("bexpr/server");
  // @ts-expect-error: a filter is source text or an AST
  compileFilter(42);
  return typeof startAgent === "function" && compileFilter('Status == "running"').test(job);
}
`;

  /** A CommonJS module under nodenext, where TypeScript (5.8 on) allows require() of ESM as Node 20.19 does. */
  const REQUIRE = `
import bexpr = require("bexpr");
import server = require("bexpr/server");
export const accepted: boolean = bexpr.compileFilter('Status == "running"').test({ Status: "running" });
export const start: typeof server.startAgent = server.startAgent;
// @ts-expect-error: a filter is source text or an AST
bexpr.compileFilter(42);
`;

  // One setting also checks the declarations (skipLibCheck false): a stripped @internal type that a
  // public one still names would be an error there. That takes seconds, so the others skip it.
  it.each([
    { resolution: "node16", module: "node16", files: { "uses.mts": USES, "dynamic.cts": DYNAMIC_IMPORT }, checkDeclarations: false },
    { resolution: "nodenext", module: "nodenext", files: { "uses.mts": USES, "require.cts": REQUIRE }, checkDeclarations: true },
    { resolution: "bundler", module: "esnext", files: { "uses.ts": USES }, checkDeclarations: false },
    { resolution: "node10", module: "commonjs", files: { "uses.ts": USES }, checkDeclarations: false },
  ])("type-checks imports of bexpr and bexpr/server under moduleResolution $resolution", ({ resolution, module, files, checkDeclarations }) => {
    const directory = join(consumer, `ts-${resolution}`);
    mkdirSync(directory);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text);
    const compilerOptions = {
      module,
      moduleResolution: resolution,
      target: "ES2022",
      strict: true,
      esModuleInterop: true,
      noEmit: true,
      skipLibCheck: !checkDeclarations,
      types: ["node"],
      typeRoots: [join(ROOT, "node_modules/@types")],
      // pg's own types (the consumer installs pg, whose types are a separate package, here the project's).
      paths: { pg: [join(ROOT, "node_modules/@types/pg/index.d.ts")] },
    };
    writeFileSync(join(directory, "tsconfig.json"), JSON.stringify({ compilerOptions, files: Object.keys(files) }, null, 2));
    const result = run(join(ROOT, "node_modules/.bin/tsc"), ["-p", directory], directory);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  }, COMMAND_TIMEOUT_MS);
});

describe("engines", () => {
  // The package is ESM; require() of it works unflagged from Node 20.19 and 22.12 (and 23).
  it.each([
    ["20.18.3", false],
    ["20.19.0", true],
    ["21.7.3", false],
    ["22.11.0", false],
    ["22.12.0", true],
    ["24.0.0", true],
  ])("Node %s satisfies engines: %s", (version, expected) => {
    expect(semver.satisfies(version, project.engines.node)).toBe(expected);
  });

  it("accepts the Node running these tests, which can require() ESM", () => {
    expect(semver.satisfies(process.version, project.engines.node)).toBe(true);
    expect(process.features.require_module).toBe(true);
  });
});
