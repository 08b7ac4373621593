/** The package version, read from package.json (one directory above both src/ and dist/). @module */
import { readFileSync } from "node:fs";

/** bexpr's version. */
export const VERSION: string = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
