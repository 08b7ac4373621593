/**
 * The agent's own pages: the web UI's files under `/ui/` (built by `npm run build` into
 * `dist/ui/`, read once into memory and served from that fixed map, so no request names a path on
 * disk), and `GET /_bexpr/explain`, which tells why one row of a list matches a filter or not,
 * evaluated on exactly what the list filters (the `/_bexpr/` prefix is the agent's own, outside
 * the scheduler's API).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { explain, preview, type ExplainedClause, type Explanation, type Found } from "../../editor/explain.js";
import { FilterSyntaxError } from "../../errors.js";
import type { Caller } from "../domain/acl.js";
import { checkRegion } from "../base/errors.js";
import { deploymentsEndpoint, jobsEndpoint, type ListEndpoint } from "../list/endpoints.js";
import { ALL_NAMESPACES, DEFAULT_NAMESPACE, parseToken } from "../list/query.js";
import type { Deployment, Job } from "../state/model.js";
import { namespacedKey, type Store } from "../state/store.js";
import { badRequest, notFound } from "./errors.js";
import { requireReadJob } from "./read-routes.js";
import { byMethod, EMPTY_BODY_HEADER, queryOf, sendText, TEXT, type RouteContext } from "./route.js";

/** Where the page lives. */
export const UI_PATH = "/ui/";

/** The path of the explain endpoint. */
export const EXPLAIN_PATH = "/_bexpr/explain";

/**
 * The page's Content-Security-Policy: everything from the agent itself, no inline script or
 * style, no `eval` (the engine notices and evaluates with closures), no plugins, no framing, and
 * no form posting anywhere. CodeMirror's styles are constructed style sheets (CSSOM), which the
 * policy does not cover.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The file names the build gives the bundles carry a content hash: a name is never reused for other bytes. */
const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

/** `index.html` names the current bundles: a browser asks again each time (cheaply, with its ETag). */
const REVALIDATE_CACHE = "no-cache";

/** The content types of the files the build writes; other files in the directory are not served. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".txt": TEXT,
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** One built file, ready to send. */
interface UiFile {
  readonly body: Buffer;
  readonly contentType: string;
  readonly cacheControl: string;
  readonly etag: string;
}

/** The text of the 503 when there is no built page. */
export const UI_NOT_BUILT = "The web UI is not built: run `npm run build` (it writes dist/ui/), then restart the agent.";

/**
 * The directory of the built page: `dist/ui` in the package that holds this module (found by
 * walking up to its package.json, since the bundler may put this code in `dist/`, `dist/server/`
 * or `dist/chunks/`, and the tests run it from `src/server/http/`).
 */
export function defaultUiDirectory(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let directory = from; ; directory = dirname(directory)) {
    if (existsSync(join(directory, "package.json"))) return join(directory, "dist", "ui");
    if (dirname(directory) === directory) return join(from, "ui");
  }
}

/**
 * Reads the built files of `directory` (its regular files with a known type, not its
 * subdirectories) into a map by name; undefined when there is no `index.html`.
 */
function readUiFiles(directory: string): ReadonlyMap<string, UiFile> | undefined {
  if (!existsSync(join(directory, "index.html"))) return undefined;
  const files = new Map<string, UiFile>();
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const contentType = CONTENT_TYPES[extname(entry.name)];
    if (!entry.isFile() || contentType === undefined) continue;
    const body = readFileSync(join(directory, entry.name));
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    files.set(entry.name, { body, contentType, etag, cacheControl: entry.name === "index.html" ? REVALIDATE_CACHE : IMMUTABLE_CACHE });
  }
  return files;
}

/** Headers every answer under `/ui/` carries, the 404s and the 503 included. */
function protect(reply: FastifyReply): FastifyReply {
  return reply.header("Content-Security-Policy", UI_CONTENT_SECURITY_POLICY).header("X-Content-Type-Options", "nosniff").header("Referrer-Policy", "no-referrer");
}

/**
 * Registers `/ui` (a redirect to `/ui/`) and `/ui/*`, serving the files of `directory` from
 * memory. The directory is read at the first request that finds it built, then never again; until
 * then each request looks again (so building while the agent runs works) and answers 503.
 */
export function uiFileRoutes(app: FastifyInstance, directory: string): void {
  let files: ReadonlyMap<string, UiFile> | undefined;
  app.all(
    "/ui",
    byMethod({
      GET: async (request, reply) => {
        const { search } = new URL(request.url, "http://agent");
        await reply.code(307).header("Location", `${UI_PATH}${search}`).header(EMPTY_BODY_HEADER, "1").send(Buffer.alloc(0));
        return undefined;
      },
    }),
  );
  app.all(
    "/ui/*",
    byMethod({
      GET: async (request, reply) => {
        files ??= readUiFiles(directory);
        protect(reply);
        if (files === undefined) {
          await sendText(reply, 503, UI_NOT_BUILT);
          return undefined;
        }
        // The name exactly as requested: not decoded, no dot segments resolved (as `new URL` would),
        // never joined to a path. Only the map's keys exist.
        const path = request.url.split("?", 1)[0]!;
        const name = path.slice(UI_PATH.length) || "index.html";
        const file = files.get(name);
        if (file === undefined) {
          await sendText(reply, 404, "The UI has no file by that name.");
          return undefined;
        }
        reply.header("Cache-Control", file.cacheControl).header("ETag", file.etag);
        if (request.headers["if-none-match"] === file.etag) {
          await reply.code(304).send();
          return undefined;
        }
        await reply.code(200).header("Content-Type", file.contentType).send(file.body);
        return undefined;
      },
    }),
  );
}

/**
 * The longest value an explanation carries, in characters of JSON. Each clause holds what its
 * selector found, and a filter of 2,000 clauses over a job with 4 MiB of metadata would otherwise
 * answer gigabytes; a longer value is sent as its preview, cut to this length and marked
 * `truncated`. The page shows values of 60 characters.
 */
export const MAX_EXPLAINED_VALUE_LENGTH = 1_000;

/** A value as the explain endpoint sends it: itself, or past {@link MAX_EXPLAINED_VALUE_LENGTH} its cut preview. */
function boundValue(value: unknown): { readonly value: unknown; readonly truncated?: true } {
  if (value === null || typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return { value };
  // The preview stops walking the value once it has enough, so this costs little for any value.
  const text = preview(value, MAX_EXPLAINED_VALUE_LENGTH);
  return text.length >= MAX_EXPLAINED_VALUE_LENGTH && text.endsWith("…") ? { value: text, truncated: true } : { value };
}

function boundFound(found: Found | undefined): { found?: Found } {
  if (found === undefined) return {};
  return { found: "missing" in found ? found : boundValue(found.value) };
}

/** The clause with every value it holds bounded (see {@link MAX_EXPLAINED_VALUE_LENGTH}). */
function boundClause(clause: ExplainedClause): ExplainedClause {
  switch (clause.kind) {
    case "And":
    case "Or":
      return { ...clause, operands: clause.operands.map(boundClause) };
    case "Not":
      return { ...clause, operand: boundClause(clause.operand) };
    case "Match":
      return { ...clause, ...boundFound(clause.found) };
    case "Collection":
      return {
        ...clause,
        ...boundFound(clause.found),
        elements: clause.elements.map((element) => ({ ...element, ...boundValue(element.value), body: boundClause(element.body) })),
      };
    default:
      return unreachable(clause);
  }
}

function unreachable(clause: never): never {
  throw new TypeError(`not an explained clause: ${JSON.stringify(clause)}`);
}

/**
 * A list whose rows can be explained: its endpoint (schema and filter target), what reading one of
 * its rows needs, and how one row is found by namespace and ID.
 */
interface Explainable<Row> {
  readonly endpoint: ListEndpoint<Row>;
  /**
   * The check of the route that reads one row (a 403 when it fails). Not the list's capability:
   * an explanation carries every value a clause's selector reaches, the fields the list's stubs
   * leave out included (a task's `Env`), so it gives what reading the row gives.
   */
  readonly requireRead: (caller: Caller, namespace: string) => void;
  /** What the list calls its rows, for the 404's text. */
  readonly noun: string;
  find(store: Store, namespace: string, id: string): Row | undefined;
}

const EXPLAINABLE: { readonly jobs: Explainable<Job>; readonly deployments: Explainable<Deployment> } = {
  jobs: {
    endpoint: jobsEndpoint,
    // `GET /v1/job/<id>`'s check.
    requireRead: requireReadJob,
    noun: "job",
    find: (store, namespace, id) => store.tables.jobs.get(namespacedKey(namespace, id)),
  },
  deployments: {
    endpoint: deploymentsEndpoint,
    // `GET /v1/deployment/<id>`'s check in the request's namespace; its second, on the
    // deployment's own namespace, always passes here, since only that namespace is looked in.
    requireRead: requireReadJob,
    noun: "deployment",
    // Deployment IDs are global: one in another namespace is not there for this request.
    find: (store, namespace, id) => {
      const deployment = store.tables.deployment.get(id);
      return deployment?.Namespace === namespace ? deployment : undefined;
    },
  },
};

/** Whether `list` names an explainable list. */
function isExplainable(list: string): list is keyof typeof EXPLAINABLE {
  return Object.hasOwn(EXPLAINABLE, list);
}

/** A required query parameter; its absence is a 400 saying what it is for. */
function required(query: URLSearchParams, name: string, what: string): string {
  const value = query.get(name);
  if (value === null || value === "") throw badRequest(`Missing ${name}: ${what}`);
  return value;
}

/**
 * Explains one row: its caller checked as the route that reads the row checks it, the row found in
 * the namespace asked for only, then the filter evaluated on the list's filter target with the
 * list's schema.
 */
function explainRow<Row>(context: RouteContext, list: Explainable<Row>, query: URLSearchParams, token: string): { body: unknown; index: number } {
  const { store, acl } = context;
  const namespace = query.get("namespace") || DEFAULT_NAMESPACE;
  if (namespace === ALL_NAMESPACES) throw badRequest(`namespace must name the row's namespace, not ${ALL_NAMESPACES}`);
  const id = required(query, "id", "the ID of the row to explain");
  const filter = required(query, "filter", "the filter to explain");
  // Checked before the row is looked up, as `GET /v1/job/<id>` does: a caller that may not read the
  // namespace gets its `403 Permission denied` whether the row exists or not, so the refusal
  // tells nothing of the row. A 404 instead would answer differently from the read route for the
  // same token, and would say nothing the 403 hides: the 403 depends on the namespace alone.
  list.requireRead(acl.authenticate(token), namespace);
  const row = list.find(store, namespace, id);
  if (row === undefined) throw notFound(`${list.noun} ${JSON.stringify(id)} not found in namespace ${JSON.stringify(namespace)}`);
  const { schema } = list.endpoint;
  try {
    const explanation: Explanation = explain(filter, list.endpoint.filterTarget(row, store), schema === undefined ? {} : { schema });
    return { body: { ...explanation, root: boundClause(explanation.root) }, index: store.tableIndex(...list.endpoint.tables) };
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw badRequest(`failed to read filter expression: ${error.message}`);
    throw error;
  }
}

/** `GET /_bexpr/explain?list=jobs|deployments&namespace=…&id=…&filter=…`. */
async function explainHandler(context: RouteContext, request: FastifyRequest) {
  const query = queryOf(request);
  checkRegion(query.get("region") || context.settings.region, context.settings.region);
  const list = required(query, "list", "jobs or deployments");
  if (!isExplainable(list)) throw badRequest(`Invalid list ${JSON.stringify(list)}: explain knows jobs and deployments`);
  const token = parseToken(request.headers, context.settings.headerNames);
  // Each list in its own call, so that its row type stays its own.
  return list === "jobs" ? explainRow(context, EXPLAINABLE.jobs, query, token) : explainRow(context, EXPLAINABLE.deployments, query, token);
}

/** Registers the web UI (`/ui`, `/ui/*`, from `directory`) and `GET /_bexpr/explain`. */
export function uiRoutes(app: FastifyInstance, context: RouteContext, directory = defaultUiDirectory()): void {
  uiFileRoutes(app, directory);
  app.all(EXPLAIN_PATH, byMethod({ GET: (request) => explainHandler(context, request) }));
}
