import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { METRICS } from "../../src/server/index.js";
import { prometheusName } from "../../src/server/metrics/catalogue.js";

/** The rows of the metrics table in docs/metrics.md. */
function documentedRows(): string[][] {
  const text = readFileSync(new URL("../../docs/metrics.md", import.meta.url), "utf8");
  const section = text.slice(text.indexOf("## The metrics"), text.indexOf("## Where the metrics differ"));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `svc."))
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

describe("docs/metrics.md", () => {
  it("documents every metric the agent emits, exactly as the catalogue defines it, in its order", () => {
    const expected = Object.values(METRICS).map((definition) => [
      `\`${definition.name}\``,
      `\`${prometheusName(definition.name)}\``,
      definition.type,
      definition.labels.map((label) => `\`${label}\``).join(", "),
      definition.unit,
      definition.meaning,
    ]);
    expect(documentedRows()).toEqual(expected);
  });
});
