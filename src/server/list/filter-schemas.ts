/**
 * The schemas `/v1/allocations`, `/v1/evaluations` and `/v1/nodes` compile their filters against
 * (typed mode, as the reference evaluates on its Go structs): the reference's `structs.Allocation`,
 * `structs.Evaluation` and `structs.Node`, derived from their declarations (`src/structs/`), which
 * `domain/present.ts` writes them by, so a field the struct lacks is the reference's error and an
 * absent one its zero value. The allocation and node targets also hold the fields their list's
 * stub adds (see {@link allocationFilterTarget}). Blocks the agent does not model (resources,
 * metrics, plugins) are `any`: untyped, as their shapes vary between versions of the reference.
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { ALLOC_LIST_STUB, ALLOCATION } from "../../structs/allocation.js";
import { schemaOf, schemaWith } from "../../structs/derive.js";
import { EVALUATION } from "../../structs/evaluation.js";
import { NODE, NODE_LIST_STUB } from "../../structs/node.js";

/** The fields of a stub named `names`, to lay over the full struct's. */
function stubFields(stub: typeof ALLOC_LIST_STUB | typeof NODE_LIST_STUB, names: readonly string[]) {
  return names.map((name) => stub.fields.find((each) => each.name === name)!);
}

/**
 * What `GET /v1/allocations?filter=` is evaluated on: the full `structs.Allocation`, and the two
 * fields only its stub has, `JobType` and `JobVersion` (the reference fails a filter on them: the
 * decisions table lets users filter on what they see, as on `/v1/jobs`).
 */
export const allocationFilterTarget: ObjectSchema = schemaWith(ALLOCATION, stubFields(ALLOC_LIST_STUB, ["JobType", "JobVersion"]));

/** What `GET /v1/evaluations?filter=` is evaluated on: the full `structs.Evaluation`. */
export const evaluationFilterTarget: ObjectSchema = schemaOf(EVALUATION);

/**
 * What `GET /v1/nodes?filter=` is evaluated on: the full `structs.Node` (with `Drain`, which its
 * JSON carries), and the stub's `Address` and `Version` (a filter on them fails on the reference,
 * issue 19871; the decisions table lets users filter on what they see).
 */
export const nodeFilterTarget: ObjectSchema = schemaWith(NODE, stubFields(NODE_LIST_STUB, ["Address", "Version"]));
