/**
 * Fixtures and isolation over HTTP, control routes behind the gate (`controlRoute`): named
 * snapshots of the agent's state, their restore, and the reset.
 *
 * | Request | Answer |
 * |---|---|
 * | `GET /_bexpr/snapshots` | the named snapshots: `[{Name, Index, Time, Bytes}]`, by name |
 * | `PUT /_bexpr/snapshots/<name>` | takes a snapshot of the state now (empty body), or keeps the snapshot document of the body; answers its `{Name, Index, Time, Bytes}` |
 * | `GET /_bexpr/snapshots/<name>` | the snapshot document |
 * | `POST /_bexpr/snapshots/<name>/restore` | puts it back: `{Index}`, the index of the restore's write |
 * | `DELETE /_bexpr/snapshots/<name>` | forgets it |
 * | `POST /_bexpr/reset` | empties the state back to a new agent's: `{Index}` |
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { parseJson } from "../../json.js";
import type { ControlPlane } from "../control/plane.js";
import { AgentDataError } from "../control/snapshot.js";
import type { StateControl } from "../control/state-control.js";
import { controlRoute } from "./control-routes.js";
import { badRequest } from "./errors.js";
import { bodyText, param, queryOf, wantsPretty, type Result, type RouteContext } from "./route.js";

/** The paths of the fixture routes. */
export const FIXTURE_PATHS = {
  snapshots: "/_bexpr/snapshots",
  snapshot: "/_bexpr/snapshots/:name",
  restore: "/_bexpr/snapshots/:name/restore",
  reset: "/_bexpr/reset",
} as const;

/** Runs `step`, answering a document that cannot be used with `400` and its reason. */
async function usingData<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof AgentDataError) throw badRequest(error.message);
    throw error;
  }
}

/** The snapshot document of a `PUT` body, or undefined for an empty body (take one now). */
function documentOf(request: FastifyRequest): unknown {
  const text = bodyText(request);
  if (text.trim() === "") return undefined;
  try {
    return parseJson(text);
  } catch (error) {
    throw badRequest(`the body is not JSON: ${(error as Error).message}`);
  }
}

/** Registers the fixture routes (see the module's table). */
export function fixtureRoutes(app: FastifyInstance, context: RouteContext, control: ControlPlane, state: StateControl): void {
  const route = (path: string, handlers: Parameters<typeof controlRoute>[4]) => controlRoute(app, context, control, path, handlers);
  const written = (index: number): Result => ({ body: { Index: index }, index });
  route(FIXTURE_PATHS.snapshots, {
    GET: async () => ({ body: state.listNamed() }),
  });
  route(FIXTURE_PATHS.snapshot, {
    GET: async (request) => {
      const text = state.namedText(param(request, "name"));
      return wantsPretty(queryOf(request)) ? { body: parseJson(text.toString("utf8")) } : { json: text };
    },
    PUT: async (request) => {
      const name = param(request, "name");
      const document = documentOf(request);
      return { body: await usingData(() => state.keepNamed(name, document)) };
    },
    DELETE: async (request) => {
      state.deleteNamed(param(request, "name"));
      return {};
    },
  });
  route(FIXTURE_PATHS.restore, {
    POST: async (request) => written(await usingData(() => state.restoreNamed(param(request, "name")))),
  });
  route(FIXTURE_PATHS.reset, {
    POST: async () => written(await state.reset()),
  });
}
