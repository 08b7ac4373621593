/**
 * Each operator against each kind of value, in map mode (filter-semantics.md §3: "Operators by the
 * kind of the resolved value"). A row is: filter, expected outcome (boolean or error code).
 */
import { describe } from "vitest";
import { outcomeTable, type Outcome } from "./support.js";

const job = {
  Name: "web-api",
  Status: "running",
  Empty: "",
  Priority: 50,
  Ratio: 2.5,
  Stop: false,
  Periodic: true,
  Datacenters: ["dc1", "dc2"],
  Tags: [],
  Meta: { owner: "team-a", "web-api": "yes" },
  EmptyMeta: {},
  Multiregion: null,
};

type Row = readonly [string, Outcome];

function table(rows: readonly Row[]) {
  return outcomeTable(job, rows);
}

describe("on a string", () => {
  // §3 string: `==` compares the raw literal (no trimming, no case folding); `in` is a substring
  // test and `""` is in everything; `is empty` is len==0; `is nil` is an error; `matches` is a regex.
  table([
    ['Status == "running"', true],
    ["Status == running", true],
    ["Status == `running`", true],
    ['Status == "Running"', false],
    ['Status == "running "', false],
    ["Status == 50", false],
    ['Status != "running"', false],
    ['Status != "pending"', true],
    ['"run" in Status', true],
    ['Status contains "unn"', true],
    ['"" in Status', true],
    ['"" in Empty', true],
    ['"RUN" in Status', false],
    ['"running!" in Status', false],
    ['"run" not in Status', false],
    ['Status not contains "xyz"', true],
    ['"-" in Name', true],
    ["Status is empty", false],
    ["Empty is empty", true],
    ["Status is not empty", true],
    ["Empty is not empty", false],
    ["Status is nil", "unsupported_operand"],
    ["Status is not nil", "unsupported_operand"],
    ["Empty is nil", "unsupported_operand"],
    ['Status matches "^run"', true],
    ['Status matches "NING"', false],
    ['Status not matches "^run"', false],
    ['Status not matches "^pend"', true],
  ]);
});

describe("on an int", () => {
  // §3 int: `==` coerces the literal (§4); in/contains, is empty, is nil and matches are errors.
  table([
    ["Priority == 50", true],
    ['Priority == "50"', true],
    ["Priority == `50`", true],
    ["Priority == 51", false],
    ["Priority != 50", false],
    ["Priority != 51", true],
    ['Priority == "high"', "invalid_literal"],
    ['Priority != "high"', "invalid_literal"],
    ['"5" in Priority', "unsupported_operand"],
    ["Priority contains 5", "unsupported_operand"],
    ['"5" not in Priority', "unsupported_operand"],
    ["Priority not contains 5", "unsupported_operand"],
    ["Priority is empty", "unsupported_operand"],
    ["Priority is not empty", "unsupported_operand"],
    ["Priority is nil", "unsupported_operand"],
    ["Priority is not nil", "unsupported_operand"],
    ['Priority matches "5"', "unsupported_operand"],
    ['Priority not matches "5"', "unsupported_operand"],
  ]);
});

describe("on a float", () => {
  // §3 float: as int, with ParseFloat coercion (§4).
  table([
    ["Ratio == 2.5", true],
    ['Ratio == "2.50"', true],
    ["Ratio != 2.5", false],
    ["Ratio == 2", false],
    ['Ratio == "x"', "invalid_literal"],
    ['"2" in Ratio', "unsupported_operand"],
    ["Ratio contains 2", "unsupported_operand"],
    ["Ratio is empty", "unsupported_operand"],
    ["Ratio is not empty", "unsupported_operand"],
    ["Ratio is nil", "unsupported_operand"],
    ["Ratio is not nil", "unsupported_operand"],
    ['Ratio matches "2"', "unsupported_operand"],
    ['Ratio not matches "2"', "unsupported_operand"],
  ]);
});

describe("on a bool", () => {
  // §3 bool: `==` uses ParseBool on the literal; everything else is an error.
  table([
    ["Stop == false", true],
    ["Stop == true", false],
    ["Stop != true", true],
    ["Periodic == true", true],
    ['Periodic == "true"', true],
    ["Stop == yes", "invalid_literal"],
    ['"true" in Stop', "unsupported_operand"],
    ["Stop contains true", "unsupported_operand"],
    ['"true" not in Stop', "unsupported_operand"],
    ["Stop is empty", "unsupported_operand"],
    ["Stop is not empty", "unsupported_operand"],
    ["Stop is nil", "unsupported_operand"],
    ["Stop is not nil", "unsupported_operand"],
    ['Stop matches "f"', "unsupported_operand"],
    ['Stop not matches "f"', "unsupported_operand"],
  ]);
});

describe("on an array", () => {
  // §3 slice: `==` is an error; `in` is element equality (case-sensitive, no substring); `is empty`
  // is len==0; `is nil` is IsNil (JSON `[]` → false); `matches` is an error.
  table([
    ['Datacenters == "dc1"', "unsupported_operand"],
    ['Datacenters != "dc1"', "unsupported_operand"],
    ['Tags == ""', "unsupported_operand"],
    ['"dc1" in Datacenters', true],
    ['Datacenters contains "dc2"', true],
    ['"dc" in Datacenters', false],
    ['"DC1" in Datacenters', false],
    ['"dc1 " in Datacenters', false],
    ['"" in Datacenters', false],
    ['"dc3" not in Datacenters', true],
    ['Datacenters not contains "dc1"', false],
    ['"dc1" in Tags', false],
    ['"dc1" not in Tags', true],
    ["Datacenters is empty", false],
    ["Tags is empty", true],
    ["Datacenters is not empty", true],
    ["Tags is not empty", false],
    ["Datacenters is nil", false],
    ["Tags is nil", false],
    ["Tags is not nil", true],
    ['Datacenters matches "dc"', "unsupported_operand"],
    ['Datacenters not matches "dc"', "unsupported_operand"],
  ]);
});

describe("on an object (a map in map mode)", () => {
  // §3 map: `==` is an error; `in` tests keys only (values not searched); `is empty` is len==0;
  // `is nil` is IsNil (a decoded `{}` is not nil); `matches` is an error.
  table([
    ['Meta == "x"', "unsupported_operand"],
    ['Meta != "x"', "unsupported_operand"],
    ['"owner" in Meta', true],
    ['Meta contains "web-api"', true],
    ['"/web-api" in Meta', true],
    ['"team-a" in Meta', false],
    ['"Owner" in Meta', false],
    ['"own" in Meta', false],
    ['"nope" not in Meta', true],
    ['Meta not contains "owner"', false],
    ['"owner" in EmptyMeta', false],
    ["Meta is empty", false],
    ["EmptyMeta is empty", true],
    ["Meta is not empty", true],
    ["EmptyMeta is not empty", false],
    ["Meta is nil", false],
    ["EmptyMeta is nil", false],
    ["EmptyMeta is not nil", true],
    ['Meta matches "x"', "unsupported_operand"],
    ['Meta not matches "x"', "unsupported_operand"],
  ]);
});

describe("on null", () => {
  // §3 Invalid (JSON null): `==`, `in`, `is empty` are errors; `is nil` is true; `matches` panics in
  // go-bexpr, which this project reports as nil_value (deliberate decision 1).
  table([
    ['Multiregion == "x"', "unsupported_operand"],
    ['Multiregion != "x"', "unsupported_operand"],
    ['Multiregion == ""', "unsupported_operand"],
    ['"x" in Multiregion', "unsupported_operand"],
    ['Multiregion contains "x"', "unsupported_operand"],
    ['"x" not in Multiregion', "unsupported_operand"],
    ["Multiregion is empty", "unsupported_operand"],
    ["Multiregion is not empty", "unsupported_operand"],
    ["Multiregion is nil", true],
    ["Multiregion is not nil", false],
    ['Multiregion matches "x"', "nil_value"],
    ['Multiregion not matches "x"', "nil_value"],
    ['Multiregion matches ""', "nil_value"],
  ]);
});

describe("negations pass errors through", () => {
  // §3: "`!=`, `not in`, `not contains`, `is not empty`, `is not nil` and `not matches` negate the
  // positive result only when it succeeded; errors pass through."; §6: `not` propagates errors.
  table([
    ['not Datacenters == "dc1"', "unsupported_operand"],
    ['not "5" in Priority', "unsupported_operand"],
    ["not Priority is empty", "unsupported_operand"],
    ['not Multiregion matches "x"', "nil_value"],
    ['not Priority == "high"', "invalid_literal"],
    ['not (Status == "running" and Priority is nil)', "unsupported_operand"],
  ]);
});
