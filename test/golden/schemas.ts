/**
 * The schemas of the golden scenarios in typed mode: the ones bexpr ships (`src/schemas.ts`),
 * which mirror the reference's `structs.JobListStub` and `structs.Deployment`. The typed
 * scenarios were written from the reference's Go types, so they also check the shipped schemas.
 */
export { deployment as deploymentSchema, jobListItem as jobSchema } from "../../src/schemas.js";
