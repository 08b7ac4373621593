/**
 * The packages bexpr runs with but does not install: its optional peer dependencies. `npm install
 * bexpr` installs bexpr alone (the engine's own packages are bundled into it); the agent, its
 * PostgreSQL store, its HCL policies and the language server each load packages the project that
 * uses them installs beside it, with the command {@link installCommand} writes. A missing one is
 * named with that command ({@link MissingPackageError}), never left to Node's raw
 * `ERR_MODULE_NOT_FOUND`.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/** Set by the bundler (scripts/bundle.mjs) to package.json's `peerDependencies`; not defined when the sources run as they are. */
declare const BEXPR_BUILD_PEERS: Record<string, string> | undefined;

/** The version ranges of the peer packages, from package.json. */
const RANGES: Readonly<Record<string, string>> =
  typeof BEXPR_BUILD_PEERS === "object"
    ? BEXPR_BUILD_PEERS
    : // From src/, package.json is one directory up.
      (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { peerDependencies: Record<string, string> }).peerDependencies;

/**
 * What each part that is not the engine loads, by the name its messages use. light-my-request is
 * fastify's own dependency, named so that an install on Node 20 takes a version that supports it
 * (its later releases need Node 22).
 */
export const OPTIONAL_PACKAGES = {
  /** `bexpr agent`, `startAgent`: the HTTP layer and Prometheus's client. */
  "the agent": ["fastify", "@fastify/compress", "prom-client", "light-my-request"],
  /** An agent whose store is a PostgreSQL server (`--postgres`, `store: { url }`). */
  "the PostgreSQL store": ["pg"],
  /** An agent reading ACL policies written in HCL (JSON policies need nothing), and jobspecs (`PUT /v1/jobs/parse`). */
  "HCL policies": ["@cdktf/hcl2json"],
  /** `bexpr lsp`. */
  "the language server": ["vscode-languageserver", "vscode-languageserver-textdocument"],
} as const satisfies Record<string, readonly string[]>;

/**
 * The packages of {@link OPTIONAL_PACKAGES} that bexpr does not import: named in a part's install
 * command only to pin a version another package takes (light-my-request, fastify's, whose later
 * releases need Node 22).
 */
const PINNED_ONLY: ReadonlySet<string> = new Set(["light-my-request"]);

/** The packages `part` imports: its {@link OPTIONAL_PACKAGES} but the {@link PINNED_ONLY} ones. @internal */
export function importedBy(part: OptionalPart): string[] {
  return OPTIONAL_PACKAGES[part].filter((name) => !PINNED_ONLY.has(name));
}

/** A part of bexpr that needs packages beside it. */
export type OptionalPart = keyof typeof OPTIONAL_PACKAGES;

/** The range package.json gives a peer package, which the command installs (`^5.12.8`). */
function versionOf(name: string): string {
  const range = RANGES[name];
  if (range === undefined) throw new Error(`${name} is not a peer dependency of bexpr`);
  return range;
}

/** The `npm install` command that adds what `parts` need (`npm install fastify@^5.12.8 …`); `-g` for a global install. */
export function installCommand(parts: readonly OptionalPart[], global = false): string {
  const names = parts.flatMap((part) => OPTIONAL_PACKAGES[part]);
  return `npm install${global ? " -g" : ""} ${names.map((name) => `${name}@${versionOf(name)}`).join(" ")}`;
}

/** A part of bexpr was asked for without the packages it runs with. */
export class MissingPackageError extends Error {
  /** `"MissingPackageError"`, set here so that bundling cannot rename it. */
  override readonly name = "MissingPackageError";
  /** The package that could not be found. */
  readonly package: string;
  /** The part that needs it. */
  readonly part: OptionalPart;

  constructor(part: OptionalPart, name: string, options?: ErrorOptions) {
    super(`${part} needs ${name} beside bexpr, and it is not installed: ${installCommand([part])}`, options);
    this.part = part;
    this.package = name;
  }
}

/**
 * `load()`, which imports what `part` needs; when one of its packages is not installed, a
 * {@link MissingPackageError} naming it and the command that installs them (any other failure is
 * rethrown as it is).
 */
export async function loadOptional<T>(part: OptionalPart, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackage(part, error);
    if (missing === undefined) throw error;
    throw new MissingPackageError(part, missing, { cause: error });
  }
}

/** The package of `part` that Node could not find, if that is what `error` says. */
function missingPackage(part: OptionalPart, error: unknown): string | undefined {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "ERR_MODULE_NOT_FOUND") return undefined;
  const message = String((error as Error).message);
  return OPTIONAL_PACKAGES[part].find((name) => message.includes(`'${name}'`));
}
