/**
 * The reference's `api/services_test.go`: its three endpoint tests are TODOs without a body, and the
 * others test the client's `Canonicalize` alone; the agent's native services are tested over HTTP
 * in `test/agent/services.test.ts` and by the Go client (`test/go-client/services_area.go`).
 */
import { describe } from "vitest";
import { clientSide, runGoTests, skipped } from "./ported.js";

/** Every test of api/services_test.go (reference commit aa026cc99cfb), in its order. */
export const SERVICES_TESTS = {
  TestServiceRegistrations_List: skipped("no-body", "a TODO"),
  TestServiceRegistrations_Get: skipped("no-body", "a TODO"),
  TestServiceRegistrations_Delete: skipped("no-body", "a TODO"),
  TestService_Canonicalize: clientSide("Service.Canonicalize"),
  TestServiceCheck_Canonicalize: clientSide("Service.Canonicalize"),
  TestService_Check_PassFail: clientSide("Service.Canonicalize"),
  TestService_CheckRestart: clientSide("Service.Canonicalize"),
  TestService_Connect_proxy_settings: clientSide("Service.Canonicalize"),
  TestService_Tags: clientSide("Service.Canonicalize"),
} as const;

describe("api/services_test.go", () => {
  runGoTests(SERVICES_TESTS, {});
});
