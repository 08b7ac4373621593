/** Writes the files generated from the parser (see grammar-artifacts.ts). */
import { writeFileSync } from "node:fs";
import { CST_TYPES_PATH, DIAGRAMS_PATH, EBNF_PATH, cstTypes, diagramsHtml, ebnf } from "./grammar-artifacts.js";

writeFileSync(EBNF_PATH, ebnf());
writeFileSync(CST_TYPES_PATH, cstTypes());
writeFileSync(DIAGRAMS_PATH, diagramsHtml());
process.stdout.write(`wrote ${EBNF_PATH}, ${CST_TYPES_PATH} and ${DIAGRAMS_PATH}\n`);
