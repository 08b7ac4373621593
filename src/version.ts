/** The package version. @module */
import { readFileSync } from "node:fs";

/** Set by the bundler (scripts/bundle.mjs) to the package's version; not defined when the sources run as they are. */
declare const BEXPR_BUILD_VERSION: string | undefined;

/** bexpr's version. */
export const VERSION: string =
  typeof BEXPR_BUILD_VERSION === "string"
    ? BEXPR_BUILD_VERSION
    : // From src/, package.json is one directory up.
      (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
