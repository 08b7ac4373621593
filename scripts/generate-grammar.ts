/** Writes the files generated from the parser (see grammar-artifacts.ts). */
import { writeFileSync } from "node:fs";
import { CST_TYPES_PATH, DIAGRAMS_PATH, cstTypes, diagramsHtml } from "./grammar-artifacts.js";

writeFileSync(CST_TYPES_PATH, cstTypes());
writeFileSync(DIAGRAMS_PATH, diagramsHtml());
process.stdout.write(`wrote ${CST_TYPES_PATH} and ${DIAGRAMS_PATH}\n`);
