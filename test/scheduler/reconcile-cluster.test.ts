/**
 * The reference's reconciler tests (`scheduler/reconciler/reconcile_cluster_test.go`), ported to
 * our pure `reconcile()`: the tests are in `cases-*.ts`, their fates in
 * `reconcile-cluster-ported.ts`; this file registers them and holds the table to the Go file.
 */
import { describe, expect, it } from "vitest";
import { TESTS_1 } from "./cases-1.js";
import { TESTS_2 } from "./cases-2.js";
import { TESTS_3 } from "./cases-3.js";
import { FATES, GO_TEST_FUNCTIONS, registerGoTests, type GoTests } from "./reconcile-cluster-ported.js";

const TESTS: GoTests = { ...TESTS_1, ...TESTS_2, ...TESTS_3 };

describe("reconcile_cluster_test.go, ported", () => {
  registerGoTests(FATES, TESTS);
});

describe("the table of fates", () => {
  it("gives every Go test function of the file a fate, and no other", () => {
    expect(Object.keys(FATES)).toEqual([...GO_TEST_FUNCTIONS]);
  });

  it("has a test for every ported or gap entry, and every test has such an entry", () => {
    const runnable = GO_TEST_FUNCTIONS.filter((name) => FATES[name].kind === "ported" || FATES[name].kind === "gap");
    expect(Object.keys(TESTS).sort()).toEqual([...runnable].sort());
  });
});
