/** Writes the files generated from the parser (see grammar-artifacts.ts). */
import { writeFileSync } from "node:fs";
import { DIAGRAMS_PATH, EBNF_PATH, diagramsHtml, ebnf } from "./grammar-artifacts.js";

writeFileSync(EBNF_PATH, ebnf());
writeFileSync(DIAGRAMS_PATH, diagramsHtml());
process.stdout.write(`wrote ${EBNF_PATH} and ${DIAGRAMS_PATH}\n`);
