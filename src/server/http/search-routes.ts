/**
 * Search (`command/agent/search_endpoint.go`): `PUT`/`POST /v1/search` (`structs.SearchRequest`:
 * `Prefix`, `Context`) and `/v1/search/fuzzy` (`structs.FuzzySearchRequest`: `Text`, `Context`),
 * answered as `{Matches, Truncations, Index, LastContact, KnownLeader, NextToken}` with the
 * reference's meta headers. The search itself is `domain/search.ts`. The namespace is the query's
 * (`?namespace`), else the body's, else `default`. The reference's search does not block (its
 * query options are not passed on), and neither does the agent's: `?index` is not waited on.
 *
 * @module
 */
import type { FastifyInstance } from "fastify";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { checkRegion } from "../base/errors.js";
import { fuzzySearch, prefixSearch, type SearchResult } from "../domain/search.js";
import { parseQueryOptions } from "../list/query.js";
import { byMethod, objectBody, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

/** The fields of `structs.QueryOptions` a body may carry. */
const QUERY_OPTION_FIELDS = { Region: "string", Namespace: "string", AuthToken: "string", Prefix: "string" } as const;

/** `structs.SearchRequest`. */
const SEARCH_REQUEST: ObjectSchema = { kind: "object", typeName: "SearchRequest", fields: { Context: "string", ...QUERY_OPTION_FIELDS } };

/** `structs.FuzzySearchRequest`. */
const FUZZY_SEARCH_REQUEST: ObjectSchema = { kind: "object", typeName: "FuzzySearchRequest", fields: { Text: "string", Context: "string", ...QUERY_OPTION_FIELDS } };

const stringOf = (value: unknown) => (typeof value === "string" ? value : "");

/** Registers the search endpoints. */
export function searchRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store } = context;
  const search = <Match>(schema: ObjectSchema, typeName: string, run: (body: Record<string, unknown>, namespace: string, query: URLSearchParams, caller: ReturnType<typeof context.acl.authenticate>) => SearchResult<Match>): Handler => {
    return async (request) => {
      const body = objectBody(request, schema, typeName);
      const query = queryOf(request);
      const options = parseQueryOptions(query, request.headers, context.settings);
      checkRegion(query.get("region") || stringOf(body.Region) || context.settings.region, context.settings.region);
      const namespace = query.get("namespace") || stringOf(body.Namespace) || options.namespace;
      const caller = context.acl.authenticate(options.token || stringOf(body.AuthToken));
      const { Matches, Truncations, index } = run(body, namespace, query, caller);
      const answer = { Matches, Truncations, Index: index, LastContact: 0, KnownLeader: context.peers.knownLeader, NextToken: "" };
      return { body: answer, index, read: true } satisfies Result;
    };
  };
  const prefix = search(SEARCH_REQUEST, "structs.SearchRequest", (body, namespace, _query, caller) => prefixSearch(store, caller, namespace, stringOf(body.Prefix), stringOf(body.Context)));
  const fuzzy = search(FUZZY_SEARCH_REQUEST, "structs.FuzzySearchRequest", (body, namespace, query, caller) =>
    fuzzySearch(store, caller, namespace, stringOf(body.Text), stringOf(body.Context), query.get("prefix") ?? ""),
  );
  app.all("/v1/search", byMethod({ PUT: prefix, POST: prefix }));
  app.all("/v1/search/fuzzy", byMethod({ PUT: fuzzy, POST: fuzzy }));
}
