/**
 * The simulation's control routes: the agent's clock and its scenario rules, for test suites in
 * any language (the same operations as `agent.clock` and `agent.scenarios`), behind the control
 * gate of {@link controlRoute}.
 *
 * - `GET /_bexpr/clock`: `{"Kind": "manual", "Now": "2030-01-01T00:00:00.000Z"}`;
 * - `POST /_bexpr/clock/advance` with `{"By": "10m"}` (or milliseconds): moves a manual clock,
 *   running the scheduler's steps due on the way, and answers once they are written; a 400 for a
 *   duration longer than Go's longest, or a move past `LATEST_CLOCK_NS` (the clock stays put);
 * - `GET /_bexpr/scenarios`, `POST /_bexpr/scenarios` (a rule), `DELETE /_bexpr/scenarios`,
 *   `GET` and `DELETE /_bexpr/scenarios/<id>`;
 * - `GET /_bexpr/lifecycle` (the built-in lifecycle's steps), `DELETE /_bexpr/lifecycle` (puts
 *   them back as they were), `GET` and `PATCH /_bexpr/lifecycle/<name>` (`{"After": "5m"}`,
 *   `{"Enabled": false}`, `{"Select": "…"}`).
 *
 * Fields are written in PascalCase and read in any case (see `control-casing.ts`).
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ControlPlane } from "../control/plane.js";
import { ClockLimitError, ManualClock, parseDurationNs } from "../base/clock.js";
import { noSuchStep, ScenarioRuleError } from "../scheduler/scenarios.js";
import { fieldsInAnyCase, pascalKeys } from "./control-casing.js";
import { controlRoute, jsonBody, singleFieldBody } from "./control-routes.js";
import { badRequest, notFound } from "./errors.js";
import { param, type Result, type RouteContext } from "./route.js";

/** The paths of the simulation's control routes. */
export const SIMULATION_PATHS = {
  clock: "/_bexpr/clock",
  advance: "/_bexpr/clock/advance",
  scenarios: "/_bexpr/scenarios",
  scenario: "/_bexpr/scenarios/:id",
  lifecycle: "/_bexpr/lifecycle",
  step: "/_bexpr/lifecycle/:name",
} as const;

/** The clock as the routes show it. */
function clockBody(context: RouteContext): { Kind: string; Now: string } {
  return { Kind: context.cluster.clock.kind, Now: new Date(context.cluster.clock.nowMs()).toISOString() };
}

/** `POST /_bexpr/clock/advance`: `{"By": "10m"}`. */
async function advance(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const clock = context.cluster.clock;
  if (!(clock instanceof ManualClock)) throw badRequest('the agent runs on the real clock: start it with --clock manual (clock: "manual") to move its time');
  const by = singleFieldBody(request, "By", '{"By": "10m"}');
  if (typeof by !== "string" && typeof by !== "number") throw badRequest('By must be a duration such as "10m", or milliseconds');
  let ns: bigint;
  try {
    ns = parseDurationNs(by);
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  try {
    await clock.advanceNs(ns);
  } catch (error) {
    // Refused before the clock moved: past the latest time the reference's timestamps hold.
    if (error instanceof ClockLimitError) throw badRequest(error.message);
    throw error;
  }
  return { body: clockBody(context) };
}

/** The rule of `<id>`, or a 404. */
function ruleOf(context: RouteContext, request: FastifyRequest) {
  const id = param(request, "id");
  const rule = context.cluster.rules.find((each) => each.id === id);
  if (rule === undefined) throw notFound(`scenario rule ${JSON.stringify(id)} not found`);
  return rule;
}

/** The fields of a scenario rule, and of a change to a lifecycle step, as read in any case. */
const RULE_FIELDS = ["on", "select", "after", "set", "name"] as const;
const STEP_CHANGE_FIELDS = ["select", "after", "enabled"] as const;

/** A rule as the routes show it: `{ID, Rule: {On, Select, After, Set, Name}, Fired, LastError}` (`Set` as given). */
function ruleBody(rule: { readonly id: string; readonly rule: object; readonly fired: number; readonly lastError?: string | undefined }) {
  return { ID: rule.id, Rule: pascalKeys(rule.rule), Fired: rule.fired, ...(rule.lastError === undefined ? {} : { LastError: rule.lastError }) };
}

/** A lifecycle step as the routes show it: `{Name, On, Select, After, Enabled, Does, Timing, LastError}`. */
const stepBody = (step: object) => pascalKeys(step);

/** Registers the clock's and the scenario rules' control routes. */
export function simulationRoutes(app: FastifyInstance, context: RouteContext, control: ControlPlane): void {
  const route = (path: string, handlers: Parameters<typeof controlRoute>[4]) => controlRoute(app, context, control, path, handlers);
  route(SIMULATION_PATHS.clock, { GET: async () => ({ body: clockBody(context) }) });
  route(SIMULATION_PATHS.advance, { POST: (request) => advance(context, request) });
  route(SIMULATION_PATHS.scenarios, {
    GET: async () => ({ body: context.cluster.rules.map(ruleBody) }),
    POST: async (request) => {
      try {
        return { body: ruleBody(context.cluster.addRule(fieldsInAnyCase(jsonBody(request), RULE_FIELDS))) };
      } catch (error) {
        if (error instanceof ScenarioRuleError) throw badRequest(error.message);
        throw error;
      }
    },
    DELETE: async () => {
      for (const { id } of context.cluster.rules) context.cluster.removeRule(id);
      return {};
    },
  });
  route(SIMULATION_PATHS.lifecycle, {
    GET: async () => ({ body: context.cluster.lifecycle.map(stepBody) }),
    DELETE: async () => {
      context.cluster.resetLifecycle();
      return { body: context.cluster.lifecycle.map(stepBody) };
    },
  });
  /** The step `<name>` names, or a 404. */
  const stepOf = (request: FastifyRequest) => {
    const name = param(request, "name");
    const step = context.cluster.lifecycle.find((each) => each.name === name);
    if (step === undefined) throw notFound(noSuchStep(name));
    return step;
  };
  route(SIMULATION_PATHS.step, {
    GET: async (request) => ({ body: stepBody(stepOf(request)) }),
    PATCH: async (request) => {
      const { name } = stepOf(request);
      try {
        return { body: stepBody(context.cluster.changeLifecycle(name, fieldsInAnyCase(jsonBody(request), STEP_CHANGE_FIELDS))) };
      } catch (error) {
        if (error instanceof ScenarioRuleError) throw badRequest(error.message);
        throw error;
      }
    },
  });
  route(SIMULATION_PATHS.scenario, {
    GET: async (request) => ({ body: ruleBody(ruleOf(context, request)) }),
    DELETE: async (request) => {
      context.cluster.removeRule(ruleOf(context, request).id);
      return {};
    },
  });
}
