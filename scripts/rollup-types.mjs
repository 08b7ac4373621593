/**
 * The declarations of dist/: one rolled-up `.d.ts` per entry point (`bexpr`, `bexpr/server`,
 * `bexpr/sql`, `bexpr/codemirror`), made by API Extractor from the declarations tsc wrote, which
 * are then removed. A consumer gets exactly the types its imports reach, none of the internals'
 * files; the types of the bundled packages (Chevrotain's token, lossless-json's numbers) are
 * written into the roll-ups (`bundledPackages`), so that those packages need not be installed.
 *
 * Plain JavaScript, as it runs before anything is compiled (`npm run build`).
 */
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
/** The entry points, as tsc's declarations name them. */
const ENTRIES = ["index", "server/index", "sql/index", "codemirror/index"];
/** Packages bundled into dist/'s JavaScript: their types are written into the roll-ups too. */
const BUNDLED = ["chevrotain", "@chevrotain/types", "re2js", "lossless-json"];

const rolled = new Map();
for (const entry of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: join(ROOT, "dist", `${entry}.d.ts`),
      bundledPackages: BUNDLED,
      compiler: { tsconfigFilePath: join(ROOT, "tsconfig.build.json") },
      apiReport: { enabled: false },
      docModel: { enabled: false },
      tsdocMetadata: { enabled: false },
      dtsRollup: { enabled: true, untrimmedFilePath: join(ROOT, "dist", `${entry}.rolled.d.ts`) },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        extractorMessageReporting: {
          default: { logLevel: "warning" },
          // Release tags (@public, @beta) are not used here: every export is public.
          "ae-missing-release-tag": { logLevel: "none" },
          // Exported names that are not exported from the entry (an option type's helper): written in, as they should be.
          "ae-forgotten-export": { logLevel: "none" },
          // TSDoc's stricter reading of the JSDoc (`@module`, `{@link}` forms): not what the docs are checked with (typedoc is).
          "ae-unresolved-link": { logLevel: "none" },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
    configObjectFullPath: join(ROOT, "api-extractor.json"),
    packageJsonFullPath: join(ROOT, "package.json"),
    packageJson: pkg,
  });
  // Messages go to stderr (npm pack --json reads stdout), the notices (the TypeScript version API Extractor analyses with) nowhere.
  const result = Extractor.invoke(config, {
    localBuild: true,
    showVerboseMessages: false,
    messageCallback: (message) => {
      message.handled = true;
      if (message.logLevel === "warning" || message.logLevel === "error") process.stderr.write(`${message.formatMessageWithLocation(ROOT)}\n`);
    },
  });
  if (!result.succeeded || result.warningCount > 0) throw new Error(`rollup-types: ${entry}: ${result.errorCount} errors, ${result.warningCount} warnings`);
  rolled.set(entry, readFileSync(join(ROOT, "dist", `${entry}.rolled.d.ts`), "utf8"));
}

// Every declaration tsc wrote goes; the roll-ups take the entry points' places.
for (const entry of readdirSync(join(ROOT, "dist"), { recursive: true, withFileTypes: true })) {
  if (entry.isFile() && entry.name.endsWith(".d.ts")) rmSync(join(entry.parentPath, entry.name));
}
for (const [entry, text] of rolled) writeFileSync(join(ROOT, "dist", `${entry}.d.ts`), text);
