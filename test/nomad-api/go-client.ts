/**
 * A small client that sends what the reference's Go client (`github.com/hashicorp/nomad/api`)
 * sends, for the calls the ported tests make, and decodes each answer into the client's field
 * types (`go-json.ts`): a field of the wrong type fails the call as `json.Decoder` would fail it.
 *
 * What goes on the wire, as `api.Client` builds it (`api.go`: `newRequest`, `setQueryOptions`,
 * `toHTTP`): the method; the path as `url.URL.EscapedPath` writes it (IDs the Go client passes
 * through `url.PathEscape` escaped as it escapes them); the query as `url.Values.Encode` writes it
 * (keys sorted, `QueryEscape`d); the body as `json.Encoder.Encode` writes the request struct (Go's
 * field order, `null` for nil, a final newline), and no `Content-Type`; the headers `User-Agent:
 * Go-http-client/1.1`, `Accept-Encoding: gzip` and the token header when there is a token. The
 * transport (undici) adds `connection: keep-alive` and writes `host` in lower case, where Go's
 * transport writes neither: HTTP/1.1 gives both the same meaning.
 *
 * The token and meta headers are named by the run's {@link HeaderStyle}: the spec's `X-Svc-*`, or
 * the reference's own `X-Nomad-*` (the agent's `headers: "nomad"` option). {@link HEADER_NAMES}
 * is the one place they are spelt.
 *
 * Each method answers what the Go method returns, as a tuple (`[resp, meta]`), and throws what it
 * returns as its error, with Go's text (`Unexpected response code: 404 (job not found)`). The
 * client-side sorts the Go methods apply (`JobIDSort`, `EvalIndexSort`…) are applied too: the Go
 * tests rely on them.
 *
 * @module
 */
import { gunzipSync } from "node:zlib";
import { request as undiciRequest } from "undici";
import { parseJson } from "../../src/json.js";
import { decodeGo, decodeStruct, encodeGo, GoDecodeError } from "./go-json.js";
import type { GoInt64, GoStruct, GoStructInput, StructName } from "./go-types.js";

/** The header styles a run can use: the spec's `X-Svc-*`, or the reference's `X-Nomad-*`. */
export const HEADER_STYLES = ["svc", "nomad"] as const;

/** A header style (see {@link HEADER_STYLES}). */
export type HeaderStyle = (typeof HEADER_STYLES)[number];

/** The headers the client sends and reads, in one style, spelt as the Go client spells them. */
export interface HeaderNames {
  /** The request header of the ACL token's secret. */
  readonly token: string;
  /** The response header of the index (`QueryMeta.LastIndex`, `WriteMeta.LastIndex`). */
  readonly index: string;
  /** The response header of `QueryMeta.KnownLeader`. */
  readonly knownLeader: string;
  /** The response header of `QueryMeta.LastContact`, in milliseconds. */
  readonly lastContact: string;
  /** The response header of `QueryMeta.NextToken`. */
  readonly nextToken: string;
}

/** The one place the header names are spelt: the Go client's `X-Nomad-*`, and the spec's renaming of them. */
export const HEADER_NAMES: Readonly<Record<HeaderStyle, HeaderNames>> = {
  svc: { token: "X-Svc-Token", index: "X-Svc-Index", knownLeader: "X-Svc-KnownLeader", lastContact: "X-Svc-LastContact", nextToken: "X-Svc-NextToken" },
  nomad: { token: "X-Nomad-Token", index: "X-Nomad-Index", knownLeader: "X-Nomad-KnownLeader", lastContact: "X-Nomad-LastContact", nextToken: "X-Nomad-NextToken" },
};

/** `api.Config`, as far as the ported tests set it. */
export interface ClientConfig {
  /** `http://127.0.0.1:4646`: the agent's URL. */
  readonly address: string;
  /** The header style of this run. */
  readonly headers: HeaderStyle;
  readonly region?: string;
  readonly namespace?: string;
  /** `SecretID`: the token sent with every request. */
  secretID?: string;
  /** Headers sent with every request. */
  readonly extraHeaders?: Readonly<Record<string, string>>;
}

/** `api.QueryOptions`. */
export interface QueryOptions {
  Region?: string;
  Namespace?: string;
  AllowStale?: boolean;
  WaitIndex?: GoInt64;
  /** `WaitTime`, in nanoseconds as Go's time.Duration. */
  WaitTime?: number;
  Prefix?: string;
  Params?: Record<string, string>;
  Headers?: Record<string, string>;
  AuthToken?: string;
  Filter?: string;
  PerPage?: number;
  NextToken?: string;
  Reverse?: boolean;
  /** The request's context: aborting it cancels the request. */
  signal?: AbortSignal;
}

/** `api.WriteOptions`. */
export interface WriteOptions {
  Region?: string;
  Namespace?: string;
  AuthToken?: string;
  Headers?: Record<string, string>;
  IdempotencyToken?: string;
}

/** `api.QueryMeta`. */
export interface QueryMeta {
  LastIndex: GoInt64;
  /** In milliseconds. */
  LastContact: number;
  KnownLeader: boolean;
  NextToken: string;
  /** In milliseconds. */
  RequestTime: number;
}

/** `api.WriteMeta`. */
export interface WriteMeta {
  LastIndex: GoInt64;
  /** In milliseconds. */
  RequestTime: number;
}

/** An error the Go client returns that is not an answer's status: a decoding error, or a check the client makes itself. */
export class GoClientError extends Error {
  override readonly name = "GoClientError";
}

/** `api.UnexpectedResponseError`: a status other than the expected one, with the body, trimmed. */
export class UnexpectedResponseError extends Error {
  override readonly name = "UnexpectedResponseError";
  constructor(
    readonly statusCode: number,
    readonly body: string,
  ) {
    super(body === "" ? `Unexpected response code: ${statusCode}` : `Unexpected response code: ${statusCode} (${body})`);
  }
}

// ---------------------------------------------------------------------------------------------
// URLs, as Go's net/url writes them

type EscapeMode = "path" | "pathSegment" | "queryComponent";

/** Go's `shouldEscape` for the modes the client uses. */
function shouldEscape(byte: number, mode: EscapeMode): boolean {
  const char = String.fromCharCode(byte);
  if (/[A-Za-z0-9]/.test(char)) return false;
  if ("-_.~".includes(char)) return false;
  if ("$&+,/:;=?@".includes(char)) {
    if (mode === "path") return char === "?";
    if (mode === "pathSegment") return "/;,?".includes(char);
    return true;
  }
  return true;
}

function escape(text: string, mode: EscapeMode): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    if (mode === "queryComponent" && byte === 0x20) out += "+";
    else if (shouldEscape(byte, mode)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return out;
}

/** `url.PathEscape`: what the Go client applies to job IDs in paths. */
export function pathEscape(text: string): string {
  return escape(text, "pathSegment");
}

/** `url.QueryEscape`. */
export function queryEscape(text: string): string {
  return escape(text, "queryComponent");
}

/** Go's `unescape`; undefined for a malformed `%` escape (url.Parse fails then). */
function unescape(text: string, mode: EscapeMode): string | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === "%") {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (char === "+" && mode === "queryComponent") bytes.push(0x20);
    else bytes.push(...Buffer.from(char, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** `url.URL.EscapedPath` of a path given as the Go client writes it into an endpoint. */
function escapedPath(raw: string): string {
  const decoded = unescape(raw, "path");
  if (decoded === undefined) throw new GoClientError(`parse ${JSON.stringify(raw)}: invalid URL escape`);
  const validEncoded = [...Buffer.from(raw, "utf8")].every((byte) => "!$&'()*+,;=:@[]%".includes(String.fromCharCode(byte)) || !shouldEscape(byte, "path"));
  return validEncoded ? raw : escape(decoded, "path");
}

/** `url.Values`: values by key, in the order added. */
class Values {
  private readonly map = new Map<string, string[]>();
  set(key: string, value: string): void {
    this.map.set(key, [value]);
  }
  add(key: string, value: string): void {
    this.map.set(key, [...(this.map.get(key) ?? []), value]);
  }
  /** `Values.Encode`: keys sorted, each value `QueryEscape`d. */
  encode(): string {
    return [...this.map.keys()]
      .sort()
      .flatMap((key) => (this.map.get(key) ?? []).map((value) => `${queryEscape(key)}=${queryEscape(value)}`))
      .join("&");
  }
}

/** `textproto.CanonicalMIMEHeaderKey`, as Go's `http.Header.Set` applies it. */
function canonicalHeader(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_all, dash: string, letter: string) => dash + letter.toUpperCase());
}

// ---------------------------------------------------------------------------------------------
// Requests

/** One answer, its body decompressed as `autoUnzip` does. */
interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
  readonly requestTime: number;
}

/** A request being built (`api.request`). */
class GoRequest {
  readonly params = new Values();
  readonly headers = new Map<string, string>();
  token: string | undefined;
  body: string | undefined;
  signal: AbortSignal | undefined;
  readonly path: string;

  constructor(
    readonly client: GoClient,
    readonly method: string,
    endpoint: string,
  ) {
    const config = client.config;
    const question = endpoint.indexOf("?");
    this.path = escapedPath(question === -1 ? endpoint : endpoint.slice(0, question));
    if (config.region) this.params.set("region", config.region);
    if (config.namespace) this.params.set("namespace", config.namespace);
    if (config.secretID) this.token = config.secretID;
    if (question !== -1) {
      // u.Query(): pairs split on "&", each unescaped; pairs that do not parse are dropped.
      for (const pair of endpoint.slice(question + 1).split("&")) {
        if (pair === "" || pair.includes(";")) continue;
        const equals = pair.indexOf("=");
        const key = unescape(equals === -1 ? pair : pair.slice(0, equals), "queryComponent");
        const value = unescape(equals === -1 ? "" : pair.slice(equals + 1), "queryComponent");
        if (key !== undefined && value !== undefined) this.params.add(key, value);
      }
    }
    for (const [name, value] of Object.entries(config.extraHeaders ?? {})) this.headers.set(canonicalHeader(name), value);
  }

  /** `setQueryOptions`. */
  query(q: QueryOptions | undefined): this {
    if (q === undefined) return this;
    if (q.Region) this.params.set("region", q.Region);
    if (q.Namespace) this.params.set("namespace", q.Namespace);
    if (q.AuthToken) this.token = q.AuthToken;
    if (q.AllowStale) this.params.set("stale", "");
    if (q.WaitIndex) this.params.set("index", String(q.WaitIndex));
    if (q.WaitTime) this.params.set("wait", `${Math.trunc(q.WaitTime / 1e6)}ms`);
    if (q.Prefix) this.params.set("prefix", q.Prefix);
    if (q.Filter) this.params.set("filter", q.Filter);
    if (q.PerPage) this.params.set("per_page", String(q.PerPage));
    if (q.NextToken) this.params.set("next_token", q.NextToken);
    if (q.Reverse) this.params.set("reverse", "true");
    for (const [key, value] of Object.entries(q.Params ?? {})) this.params.set(key, value);
    this.signal = q.signal;
    for (const [name, value] of Object.entries(q.Headers ?? {})) this.headers.set(canonicalHeader(name), value);
    return this;
  }

  /** `setWriteOptions`. */
  write(q: WriteOptions | undefined): this {
    if (q === undefined) return this;
    if (q.Region) this.params.set("region", q.Region);
    if (q.Namespace) this.params.set("namespace", q.Namespace);
    if (q.AuthToken) this.token = q.AuthToken;
    if (q.IdempotencyToken) this.params.set("idempotency_token", q.IdempotencyToken);
    for (const [name, value] of Object.entries(q.Headers ?? {})) this.headers.set(canonicalHeader(name), value);
    return this;
  }

  /** The request body: the Go value encoded as `encodeBody` encodes it. */
  json(value: unknown, type: string): this {
    this.body = encodeGo(value, type);
    return this;
  }

  /** `toHTTP` and `doRequest`: sends it; the body of the answer unzipped, as `autoUnzip` does. */
  async send(): Promise<RawResponse & { readonly stream: AsyncIterable<Buffer> | undefined }> {
    const query = this.params.encode();
    const headers: Record<string, string> = { "User-Agent": "Go-http-client/1.1", ...Object.fromEntries(this.headers), "Accept-Encoding": "gzip" };
    if (this.token) headers[this.client.names.token] = this.token;
    // Go's transport writes Content-Length: 0 for a PUT or POST without a body; undici does the same.
    const started = performance.now();
    const response = await undiciRequest(`${this.client.config.address}${this.path}${query === "" ? "" : `?${query}`}`, {
      method: this.method as "GET",
      headers,
      body: this.body,
      signal: this.signal,
    });
    const responseHeaders: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(response.headers)) responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
    return { status: response.statusCode, headers: responseHeaders, body: Buffer.alloc(0), requestTime: performance.now() - started, stream: response.body };
  }

  /** Sends it and reads the whole answer. */
  async do(): Promise<RawResponse> {
    const response = await this.send();
    const chunks: Buffer[] = [];
    for await (const chunk of response.stream ?? []) chunks.push(Buffer.from(chunk));
    const raw = Buffer.concat(chunks);
    const body = response.headers["content-encoding"] === "gzip" && raw.length > 0 ? gunzipSync(raw) : raw;
    return { ...response, body };
  }

  /** `requireOK(doRequest(r))`. */
  async doOK(): Promise<RawResponse> {
    const response = await this.do();
    if (response.status !== 200) throw new UnexpectedResponseError(response.status, response.body.toString("utf8").trim());
    return response;
  }
}

/** `parseQueryMeta`: stops at the first header that does not parse, as Go's does (its error is ignored by `query`). */
function parseQueryMeta(response: RawResponse, names: HeaderNames): QueryMeta {
  const meta: QueryMeta = { LastIndex: 0, LastContact: 0, KnownLeader: false, NextToken: "", RequestTime: response.requestTime };
  const header = (name: string) => response.headers[name.toLowerCase()] ?? "";
  const index = parseUint(header(names.index));
  if (index === undefined) return meta;
  meta.LastIndex = index;
  const lastContact = parseUint(header(names.lastContact));
  if (lastContact === undefined) return meta;
  meta.LastContact = Number(lastContact);
  meta.NextToken = header(names.nextToken);
  meta.KnownLeader = header(names.knownLeader) === "true";
  return meta;
}

/** `parseWriteMeta`. */
function parseWriteMeta(response: RawResponse, names: HeaderNames): WriteMeta {
  return { LastIndex: parseUint(response.headers[names.index.toLowerCase()] ?? "") ?? 0, RequestTime: response.requestTime };
}

/** `strconv.ParseUint(s, 10, 64)`. */
function parseUint(text: string): GoInt64 | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  if (value >= 1n << 64n) return undefined;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** `decodeBody`: a `Content-Length: 0` answer fails when a value is expected; else `json.Decoder.Decode`. */
function decodeBody(response: RawResponse, type: string): unknown {
  if (response.headers["content-length"] === "0") throw new GoClientError("Got 0 byte response with non-nil decode object");
  const text = response.body.toString("utf8");
  if (text.trim() === "") throw new GoClientError("EOF");
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw new GoClientError(`invalid JSON in the answer: ${(error as Error).message}`);
  }
  return decodeGo(value, type);
}

/** Go's sort.Sort on these short lists: an insertion sort, so stable. */
function sorted<T>(list: T[] | null, before: (a: T, b: T) => boolean): T[] | null {
  if (list === null) return null;
  return [...list].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}

const byCreateIndexDescending = (a: { CreateIndex: GoInt64 } | null, b: { CreateIndex: GoInt64 } | null) => (a?.CreateIndex ?? 0) > (b?.CreateIndex ?? 0);

// ---------------------------------------------------------------------------------------------
// The client

type Stub<N extends StructName> = GoStruct<N> | null;

/** `api.Client`: the endpoints the ported tests call, grouped as the Go client groups them. */
export class GoClient {
  readonly names: HeaderNames;

  constructor(readonly config: ClientConfig) {
    this.names = HEADER_NAMES[config.headers];
  }

  /** `SetSecretID`. */
  setSecretID(secretID: string): void {
    this.config.secretID = secretID;
  }

  /** `newRequest`. */
  newRequest(method: string, endpoint: string): GoRequest {
    return new GoRequest(this, method, endpoint);
  }

  /** `query`: a GET whose answer is decoded into the Go type `type`. */
  async query<T>(endpoint: string, type: string, q?: QueryOptions): Promise<[T, QueryMeta]> {
    const response = await this.newRequest("GET", endpoint).query(q).doOK();
    const meta = parseQueryMeta(response, this.names);
    return [decodeBody(response, type) as T, meta];
  }

  /** `putQuery`. */
  async putQuery<T>(endpoint: string, body: { value: unknown; type: string } | undefined, type: string, q?: QueryOptions): Promise<[T, QueryMeta]> {
    const request = this.newRequest("PUT", endpoint).query(q);
    if (body !== undefined) request.json(body.value, body.type);
    const response = await request.doOK();
    const meta = parseQueryMeta(response, this.names);
    return [decodeBody(response, type) as T, meta];
  }

  /** `write` (put, post, delete): the answer decoded when `type` is given, as `out != nil`. */
  async write<T>(method: "PUT" | "POST" | "DELETE", endpoint: string, body: { value: unknown; type: string } | undefined, type: string | undefined, q?: WriteOptions): Promise<[T, WriteMeta]> {
    const request = this.newRequest(method, endpoint).write(q);
    if (body !== undefined) request.json(body.value, body.type);
    const response = await request.doOK();
    const meta = parseWriteMeta(response, this.names);
    return [(type === undefined ? undefined : decodeBody(response, type)) as T, meta];
  }

  /** `Jobs()`. */
  readonly jobs = {
    /** `List`: sorted by ID (`JobIDSort`). */
    list: async (q?: QueryOptions): Promise<[Stub<"JobListStub">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"JobListStub">[] | null>("/v1/jobs", "[]*JobListStub", q);
      return [sorted(list, (a, b) => (a?.ID ?? "") < (b?.ID ?? "")), meta];
    },
    /** `PrefixList`. */
    prefixList: (prefix: string) => this.jobs.list({ Prefix: prefix }),
    /** `Register`. */
    register: (job: GoStructInput<"Job">, q?: WriteOptions) => this.jobs.registerOpts(job, undefined, q),
    /** `EnforceRegister`. */
    enforceRegister: (job: GoStructInput<"Job">, modifyIndex: GoInt64, q?: WriteOptions) => this.jobs.registerOpts(job, { EnforceIndex: true, ModifyIndex: modifyIndex }, q),
    /** `RegisterOpts`: a `JobRegisterRequest` PUT to `/v1/jobs`. */
    registerOpts: async (job: GoStructInput<"Job">, opts: RegisterOptions | undefined, q?: WriteOptions): Promise<[GoStruct<"JobRegisterResponse">, WriteMeta]> => {
      const request: GoStructInput<"JobRegisterRequest"> = { Job: job };
      if (opts !== undefined) {
        if (opts.EnforceIndex) Object.assign(request, { EnforceIndex: true, JobModifyIndex: opts.ModifyIndex ?? 0 });
        Object.assign(request, {
          PolicyOverride: opts.PolicyOverride ?? false,
          PreserveCounts: opts.PreserveCounts ?? false,
          PreserveResources: opts.PreserveResources ?? false,
          EvalPriority: opts.EvalPriority ?? 0,
          Submission: opts.Submission ?? null,
        });
      }
      return this.write("PUT", "/v1/jobs", { value: request, type: "JobRegisterRequest" }, "JobRegisterResponse", q);
    },
    /** `Info`. */
    info: (jobID: string, q?: QueryOptions) => this.query<GoStruct<"Job">>(`/v1/job/${pathEscape(jobID)}`, "Job", q),
    /** `Versions` (`VersionsOpts` with `diffs`). */
    versions: async (jobID: string, diffs: boolean, q?: QueryOptions): Promise<[Stub<"Job">[] | null, Stub<"JobDiff">[] | null, QueryMeta]> => {
      const [response, meta] = await this.query<GoStruct<"JobVersionsResponse">>(`/v1/job/${pathEscape(jobID)}/versions?diffs=${diffs}`, "JobVersionsResponse", q);
      return [response.Versions, response.Diffs, meta];
    },
    /** `Allocations`: newest first (`AllocIndexSort`). */
    allocations: async (jobID: string, allAllocs: boolean, q?: QueryOptions): Promise<[Stub<"AllocationListStub">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"AllocationListStub">[] | null>(`/v1/job/${pathEscape(jobID)}/allocations?all=${allAllocs}`, "[]*AllocationListStub", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `Deployments`: newest first (`DeploymentIndexSort`). */
    deployments: async (jobID: string, all: boolean, q?: QueryOptions): Promise<[Stub<"Deployment">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"Deployment">[] | null>(`/v1/job/${pathEscape(jobID)}/deployments?all=${all}`, "[]*Deployment", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `LatestDeployment`. */
    latestDeployment: (jobID: string, q?: QueryOptions) => this.query<Stub<"Deployment">>(`/v1/job/${pathEscape(jobID)}/deployment`, "*Deployment", q),
    /** `Evaluations`: newest first (`EvalIndexSort`). */
    evaluations: async (jobID: string, q?: QueryOptions): Promise<[Stub<"Evaluation">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"Evaluation">[] | null>(`/v1/job/${pathEscape(jobID)}/evaluations`, "[]*Evaluation", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `Deregister`: answers the evaluation's ID. */
    deregister: async (jobID: string, purge: boolean, q?: WriteOptions): Promise<[string, WriteMeta]> => {
      const [response, meta] = await this.write<GoStruct<"JobDeregisterResponse">>("DELETE", `/v1/job/${pathEscape(jobID)}?purge=${purge}`, undefined, "JobDeregisterResponse", q);
      return [response.EvalID, meta];
    },
    /** `DeregisterOpts`. */
    deregisterOpts: async (jobID: string, opts: DeregisterOptions | undefined, q?: WriteOptions): Promise<[string, WriteMeta]> => {
      let endpoint = `/v1/job/${pathEscape(jobID)}`;
      if (opts !== undefined) {
        endpoint += `?purge=${opts.Purge ?? false}&global=${opts.Global ?? false}&eval_priority=${opts.EvalPriority ?? 0}&no_shutdown_delay=${opts.NoShutdownDelay ?? false}`;
      }
      const [response, meta] = await this.write<GoStruct<"JobDeregisterResponse">>("DELETE", endpoint, undefined, "JobDeregisterResponse", q);
      return [response.EvalID, meta];
    },
    /** `PeriodicForce`: answers the evaluation's ID. */
    periodicForce: async (jobID: string, q?: WriteOptions): Promise<[string, WriteMeta]> => {
      const [response, meta] = await this.write<GoStruct<"periodicForceResponse">>("PUT", `/v1/job/${pathEscape(jobID)}/periodic/force`, undefined, "periodicForceResponse", q);
      return [response.EvalID, meta];
    },
    /** `Revert`: a `JobRevertRequest` PUT, answered as a registration. */
    revert: (jobID: string, version: GoInt64, enforcePriorVersion: GoInt64 | null, q?: WriteOptions, consulToken = "", vaultToken = "") =>
      this.write<GoStruct<"JobRegisterResponse">>(
        "PUT",
        `/v1/job/${pathEscape(jobID)}/revert`,
        { value: { JobID: jobID, JobVersion: version, EnforcePriorVersion: enforcePriorVersion, ConsulToken: consulToken, VaultToken: vaultToken }, type: "JobRevertRequest" },
        "JobRegisterResponse",
        q,
      ),
    /** `Scale`: a `ScalingRequest` PUT whose target names the job and the group. */
    scale: (jobID: string, group: string, count: number | null, message: string, error: boolean, meta: Record<string, unknown> | null, q?: WriteOptions) =>
      this.write<GoStruct<"JobRegisterResponse">>(
        "PUT",
        `/v1/job/${pathEscape(jobID)}/scale`,
        { value: { Count: count, Target: { Job: jobID, Group: group }, Error: error, Message: message, Meta: meta }, type: "ScalingRequest" },
        "JobRegisterResponse",
        q,
      ),
    /** `ParseHCL`: `ParseHCLOpts` with the jobspec and `Canonicalize` alone. */
    parseHCL: (jobHCL: string, canonicalize: boolean) => this.jobs.parseHCLOpts({ JobHCL: jobHCL, Canonicalize: canonicalize }),
    /** `ParseHCLOpts`: a PUT of the request, the answer decoded into a `Job`. */
    parseHCLOpts: async (request: GoStructInput<"JobsParseRequest">): Promise<GoStruct<"Job">> =>
      (await this.write<GoStruct<"Job">>("PUT", "/v1/jobs/parse", { value: request, type: "JobsParseRequest" }, "Job"))[0],
    /** `Validate`: the job in a `JobValidateRequest`, with the options' region in its write request. */
    validate: (job: GoStructInput<"Job">, q?: WriteOptions) =>
      this.write<GoStruct<"JobValidateResponse">>("PUT", "/v1/validate/job", { value: { Job: job, ...(q === undefined ? {} : { Region: q.Region ?? "" }) }, type: "JobValidateRequest" }, "JobValidateResponse", q),
    /** `ScaleStatus`. */
    scaleStatus: (jobID: string, q?: QueryOptions) => this.query<GoStruct<"JobScaleStatusResponse">>(`/v1/job/${pathEscape(jobID)}/scale`, "JobScaleStatusResponse", q),
    /** `ForceEvaluate`: a PUT without a body; answers the evaluation's ID. */
    forceEvaluate: async (jobID: string, q?: WriteOptions): Promise<[string, WriteMeta]> => {
      const [response, meta] = await this.write<GoStruct<"JobRegisterResponse">>("PUT", `/v1/job/${pathEscape(jobID)}/evaluate`, undefined, "JobRegisterResponse", q);
      return [response.EvalID, meta];
    },
    /** `Plan` (`PlanOpts` with `Diff`): a job and its ID are checked by the client first. */
    plan: async (job: GoStructInput<"Job"> | null, diff: boolean, q?: WriteOptions): Promise<[GoStruct<"JobPlanResponse">, WriteMeta]> => {
      if (job === null) throw new Error("must pass non-nil job");
      if (job.ID === undefined || job.ID === null) throw new Error("job is missing ID");
      const request: GoStructInput<"JobPlanRequest"> = { Job: job, Diff: diff, PolicyOverride: false };
      return this.write("PUT", `/v1/job/${pathEscape(job.ID as string)}/plan`, { value: request, type: "JobPlanRequest" }, "JobPlanResponse", q);
    },
    /** `Submission`: the source of a version of the job. */
    submission: (jobID: string, version: number, q?: QueryOptions) => this.query<GoStruct<"JobSubmission">>(`/v1/job/${pathEscape(jobID)}/submission?version=${version}`, "JobSubmission", q),
    /** `Summary`. */
    summary: (jobID: string, q?: QueryOptions) => this.query<GoStruct<"JobSummary">>(`/v1/job/${pathEscape(jobID)}/summary`, "JobSummary", q),
  };

  /** `Evaluations()`. */
  readonly evaluations = {
    /** `List`: newest first (`EvalIndexSort`). */
    list: async (q?: QueryOptions): Promise<[Stub<"Evaluation">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"Evaluation">[] | null>("/v1/evaluations", "[]*Evaluation", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `PrefixList`. */
    prefixList: (prefix: string) => this.evaluations.list({ Prefix: prefix }),
    /** `Info`: the Go client always asks for the related evaluations. */
    info: (evalID: string, q?: QueryOptions) => this.query<GoStruct<"Evaluation">>(`/v1/evaluation/${evalID}?related=true`, "Evaluation", q),
    /** `Allocations`: newest first (`AllocIndexSort`). */
    allocations: async (evalID: string, q?: QueryOptions): Promise<[Stub<"AllocationListStub">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"AllocationListStub">[] | null>(`/v1/evaluation/${evalID}/allocations`, "[]*AllocationListStub", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `Delete`: by IDs, the answer not decoded. */
    delete: async (evalIDs: string[], q?: WriteOptions): Promise<WriteMeta> => (await this.write("DELETE", "/v1/evaluations", { value: { EvalIDs: evalIDs }, type: "EvalDeleteRequest" }, undefined, q))[1],
    /** `DeleteOpts`: by filter (or IDs), the count decoded. */
    deleteOpts: (request: GoStructInput<"EvalDeleteRequest">, q?: WriteOptions) => this.write<GoStruct<"EvalDeleteResponse">>("DELETE", "/v1/evaluations", { value: request, type: "EvalDeleteRequest" }, "EvalDeleteResponse", q),
  };

  /** `Allocations()`. */
  readonly allocations = {
    /** `List`: newest first (`AllocIndexSort`). */
    list: async (q?: QueryOptions): Promise<[Stub<"AllocationListStub">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"AllocationListStub">[] | null>("/v1/allocations", "[]*AllocationListStub", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `PrefixList`. */
    prefixList: (prefix: string) => this.allocations.list({ Prefix: prefix }),
    /** `Info`. */
    info: (allocID: string, q?: QueryOptions) => this.query<GoStruct<"Allocation">>(`/v1/allocation/${allocID}`, "Allocation", q),
    /** `Stop`: a PUT without a body, whose query meta's index becomes the answer's `LastIndex`. */
    stop: async (allocID: string, q?: QueryOptions): Promise<GoStruct<"AllocStopResponse">> => {
      const [response, meta] = await this.putQuery<GoStruct<"AllocStopResponse">>(`/v1/allocation/${allocID}/stop`, undefined, "AllocStopResponse", q);
      return { ...response, LastIndex: meta.LastIndex };
    },
  };

  /** `Deployments()`. */
  readonly deployments = {
    /** `List`: newest first (`DeploymentIndexSort`). */
    list: async (q?: QueryOptions): Promise<[Stub<"Deployment">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"Deployment">[] | null>("/v1/deployments", "[]*Deployment", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `PrefixList`. */
    prefixList: (prefix: string) => this.deployments.list({ Prefix: prefix }),
    /** `Info`. */
    info: (deploymentID: string, q?: QueryOptions) => this.query<GoStruct<"Deployment">>(`/v1/deployment/${deploymentID}`, "Deployment", q),
    /** `Allocations`: newest first (`AllocIndexSort`). */
    allocations: async (deploymentID: string, q?: QueryOptions): Promise<[Stub<"AllocationListStub">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"AllocationListStub">[] | null>(`/v1/deployment/allocations/${deploymentID}`, "[]*AllocationListStub", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `Fail`: a `DeploymentFailRequest` PUT. */
    fail: (deploymentID: string, q?: WriteOptions) =>
      this.write<GoStruct<"DeploymentUpdateResponse">>("PUT", `/v1/deployment/fail/${deploymentID}`, { value: { DeploymentID: deploymentID }, type: "DeploymentFailRequest" }, "DeploymentUpdateResponse", q),
    /** `Pause`: a `DeploymentPauseRequest` PUT. */
    pause: (deploymentID: string, pause: boolean, q?: WriteOptions) =>
      this.write<GoStruct<"DeploymentUpdateResponse">>(
        "PUT",
        `/v1/deployment/pause/${deploymentID}`,
        { value: { DeploymentID: deploymentID, Pause: pause }, type: "DeploymentPauseRequest" },
        "DeploymentUpdateResponse",
        q,
      ),
  };

  /** `Nodes()`. */
  readonly nodes = {
    /** `List`: newest first (`NodeIndexSort`). */
    list: async (q?: QueryOptions): Promise<[Stub<"NodeListStub">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"NodeListStub">[] | null>("/v1/nodes", "[]*NodeListStub", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `PrefixList`. */
    prefixList: (prefix: string) => this.nodes.list({ Prefix: prefix }),
    /** `Info`. */
    info: (nodeID: string, q?: QueryOptions) => this.query<GoStruct<"Node">>(`/v1/node/${nodeID}`, "Node", q),
    /** `UpdateDrain`: `UpdateDrainOpts` without meta. */
    updateDrain: (nodeID: string, spec: GoStructInput<"DrainSpec"> | null, markEligible: boolean, q?: WriteOptions) => this.nodes.updateDrainOpts(nodeID, { DrainSpec: spec, MarkEligible: markEligible, Meta: null }, q),
    /** `UpdateDrainOpts`: a `NodeUpdateDrainRequest` PUT, the write's meta in the answer. */
    updateDrainOpts: async (nodeID: string, opts: { DrainSpec: GoStructInput<"DrainSpec"> | null; MarkEligible: boolean; Meta: Record<string, string> | null }, q?: WriteOptions) => {
      const request = { NodeID: nodeID, ...opts };
      const [response, meta] = await this.write<GoStruct<"NodeDrainUpdateResponse">>("PUT", `/v1/node/${nodeID}/drain`, { value: request, type: "NodeUpdateDrainRequest" }, "NodeDrainUpdateResponse", q);
      return { ...response, WriteMeta: meta };
    },
    /** `ToggleEligibility`. */
    toggleEligibility: async (nodeID: string, eligible: boolean, q?: WriteOptions) => {
      const request = { NodeID: nodeID, Eligibility: eligible ? "eligible" : "ineligible" };
      const [response, meta] = await this.write<GoStruct<"NodeEligibilityUpdateResponse">>("PUT", `/v1/node/${nodeID}/eligibility`, { value: request, type: "NodeUpdateEligibilityRequest" }, "NodeEligibilityUpdateResponse", q);
      return { ...response, WriteMeta: meta };
    },
    /** `Allocations`: newest first (`AllocationSort`). */
    allocations: async (nodeID: string, q?: QueryOptions): Promise<[Stub<"Allocation">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"Allocation">[] | null>(`/v1/node/${nodeID}/allocations`, "[]*Allocation", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `ForceEvaluate`: answers `EvalID`, which the server's answer (`EvalIDs`) does not carry: "", as in Go. */
    forceEvaluate: async (nodeID: string, q?: WriteOptions): Promise<[string, WriteMeta]> => {
      const [response, meta] = await this.write<GoStruct<"nodeEvalResponse">>("PUT", `/v1/node/${nodeID}/evaluate`, undefined, "nodeEvalResponse", q);
      return [response.EvalID, meta];
    },
    /** `Purge`: a PUT through `putQuery`. */
    purge: (nodeID: string, q?: QueryOptions) => this.putQuery<GoStruct<"NodePurgeResponse">>(`/v1/node/${nodeID}/purge`, undefined, "NodePurgeResponse", q),
    /** `Stats`: the node's `HostStats`, from its client (`/v1/client/stats?node_id=`). */
    stats: async (nodeID: string, q?: QueryOptions): Promise<GoStruct<"HostStats">> => (await this.query<GoStruct<"HostStats">>(`/v1/client/stats?node_id=${nodeID}`, "HostStats", q))[0],
  };

  /** `Variables()` (`api/variables.go`): paths are trimmed of spaces and slashes (`cleanPathString`). */
  readonly variables = {
    /** `Create` and `Update`: a PUT of the variable, the answer decoded. */
    create: (v: GoStructInput<"Variable">, q?: WriteOptions) => this.write<GoStruct<"Variable">>("PUT", `/v1/var/${cleanPath(v)}`, { value: v, type: "Variable" }, "Variable", q),
    update: (v: GoStructInput<"Variable">, q?: WriteOptions) => this.variables.create(v, q),
    /** `CheckedCreate`: `?cas=0`. */
    checkedCreate: (v: GoStructInput<"Variable">, q?: WriteOptions) => this.variables.writeChecked(`/v1/var/${cleanPath(v)}?cas=0`, v, 0, q),
    /** `CheckedUpdate`: `?cas=<ModifyIndex>`. */
    checkedUpdate: (v: GoStructInput<"Variable">, q?: WriteOptions) => this.variables.writeChecked(`/v1/var/${cleanPath(v)}?cas=${String(v.ModifyIndex ?? 0)}`, v, v.ModifyIndex ?? 0, q),
    /** `Read`: {@link ErrVariablePathNotFound} for a 404. */
    read: async (path: string, q?: QueryOptions): Promise<[GoStruct<"Variable">, QueryMeta]> => {
      const [variable, meta] = await this.variables.peek(path, q);
      if (variable === null) throw ErrVariablePathNotFound;
      return [variable, meta];
    },
    /** `Peek`: null for a 404 (`readInternal`, `requireStatusIn(200, 404)`). */
    peek: async (path: string, q?: QueryOptions): Promise<[GoStruct<"Variable"> | null, QueryMeta]> => {
      const response = await this.newRequest("GET", `/v1/var/${trimPath(path)}`).query(q).do();
      requireStatusIn(response, 200, 404);
      const meta = parseQueryMeta(response, this.names);
      return [response.status === 404 ? null : (decodeBody(response, "Variable") as GoStruct<"Variable">), meta];
    },
    /** `GetVariableItems`. */
    getVariableItems: async (path: string, q?: QueryOptions): Promise<[Record<string, string> | null, QueryMeta]> => {
      const [variable, meta] = await this.variables.read(path, q);
      return [variable.Items, meta];
    },
    /** `Delete`: `requireStatusIn(200, 204)`. */
    delete: async (path: string, q?: WriteOptions): Promise<WriteMeta> => {
      const response = await this.newRequest("DELETE", `/v1/var/${trimPath(path)}`).write(q).do();
      requireStatusIn(response, 200, 204);
      return parseWriteMeta(response, this.names);
    },
    /** `CheckedDelete`: a 409's variable as {@link ErrCASConflict}. */
    checkedDelete: async (path: string, checkIndex: GoInt64, q?: WriteOptions): Promise<WriteMeta> => {
      const response = await this.newRequest("DELETE", `/v1/var/${trimPath(path)}?cas=${String(checkIndex)}`).write(q).do();
      requireStatusIn(response, 200, 204, 409);
      if (response.status === 409) throw new ErrCASConflict(checkIndex, decodeBody(response, "*Variable") as GoStruct<"Variable">);
      return parseWriteMeta(response, this.names);
    },
    /** `writeChecked`: a PUT whose 409 is {@link ErrCASConflict}. */
    writeChecked: async (endpoint: string, v: GoStructInput<"Variable">, checkIndex: GoInt64, q?: WriteOptions): Promise<[GoStruct<"Variable">, WriteMeta]> => {
      const response = await this.newRequest("PUT", endpoint).write(q).json(v, "Variable").do();
      requireStatusIn(response, 200, 204, 409);
      if (response.status === 409) throw new ErrCASConflict(checkIndex, decodeBody(response, "*Variable") as GoStruct<"Variable">);
      return [decodeBody(response, "Variable") as GoStruct<"Variable">, parseWriteMeta(response, this.names)];
    },
    /** `List`. */
    list: (q?: QueryOptions) => this.query<Stub<"VariableMetadata">[] | null>("/v1/vars", "[]*VariableMetadata", q),
    /** `PrefixList`. */
    prefixList: (prefix: string, q?: QueryOptions) => this.variables.list({ ...q, Prefix: prefix }),
    /** `RenewLock`: answers the variable's metadata. */
    renewLock: (v: GoStructInput<"Variable">, q?: WriteOptions) => this.write<GoStruct<"VariableMetadata">>("PUT", `/v1/var/${cleanPath(v)}?lock-renew`, { value: v, type: "Variable" }, "VariableMetadata", q),
    /** `AcquireLock`. */
    acquireLock: (v: GoStructInput<"Variable">, q?: WriteOptions) => this.write<GoStruct<"Variable">>("PUT", `/v1/var/${cleanPath(v)}?lock-acquire`, { value: v, type: "Variable" }, "Variable", q),
    /** `ReleaseLock`. */
    releaseLock: (v: GoStructInput<"Variable">, q?: WriteOptions) => this.write<GoStruct<"Variable">>("PUT", `/v1/var/${cleanPath(v)}?lock-release`, { value: v, type: "Variable" }, "Variable", q),
  };

  /** `Namespaces()`. */
  readonly namespaces = {
    /** `List`: newest first (`NamespaceIndexSort`). */
    list: async (q?: QueryOptions): Promise<[Stub<"Namespace">[] | null, QueryMeta]> => {
      const [list, meta] = await this.query<Stub<"Namespace">[] | null>("/v1/namespaces", "[]*Namespace", q);
      return [sorted(list, byCreateIndexDescending), meta];
    },
    /** `PrefixList`. */
    prefixList: (prefix: string, q?: QueryOptions) => this.namespaces.list({ ...q, Prefix: prefix }),
    /** `Info`. */
    info: (name: string, q?: QueryOptions) => this.query<GoStruct<"Namespace">>(`/v1/namespace/${name}`, "Namespace", q),
    /** `Register`: the namespace PUT, nothing decoded. */
    register: async (namespace: GoStructInput<"Namespace">, q?: WriteOptions): Promise<WriteMeta> => (await this.write("PUT", "/v1/namespace", { value: namespace, type: "Namespace" }, undefined, q))[1],
    /** `Delete`. */
    delete: async (name: string, q?: WriteOptions): Promise<WriteMeta> => (await this.write("DELETE", `/v1/namespace/${name}`, undefined, undefined, q))[1],
  };

  /** `Search()`. */
  readonly search = {
    /** `PrefixSearch`. */
    prefixSearch: (prefix: string, context: string, q?: QueryOptions) =>
      this.putQuery<GoStruct<"SearchResponse">>("/v1/search", { value: { Prefix: prefix, Context: context }, type: "SearchRequest" }, "SearchResponse", q),
    /** `FuzzySearch`. */
    fuzzySearch: (text: string, context: string, q?: QueryOptions) =>
      this.putQuery<GoStruct<"FuzzySearchResponse">>("/v1/search/fuzzy", { value: { Context: context, Text: text }, type: "FuzzySearchRequest" }, "FuzzySearchResponse", q),
  };

  /** `Services()`. */
  readonly services = {
    /** `List`. */
    list: (q?: QueryOptions) => this.query<GoStruct<"ServiceRegistrationListStub">[] | null>("/v1/services", "[]*ServiceRegistrationListStub", q),
    /** `Get`. */
    get: (serviceName: string, q?: QueryOptions) => this.query<GoStruct<"ServiceRegistration">[] | null>(`/v1/service/${pathEscape(serviceName)}`, "[]*ServiceRegistration", q),
    /** `Delete`. */
    delete: async (serviceName: string, serviceID: string, q?: WriteOptions): Promise<WriteMeta> =>
      (await this.write("DELETE", `/v1/service/${pathEscape(serviceName)}/${pathEscape(serviceID)}`, undefined, undefined, q))[1],
  };

  /** `ACLPolicies()`. */
  readonly aclPolicies = {
    /** `List`. */
    list: (q?: QueryOptions) => this.query<Stub<"ACLPolicyListStub">[] | null>("/v1/acl/policies", "[]*ACLPolicyListStub", q),
    /** `Upsert`: refuses a policy without a name before sending anything. */
    upsert: async (policy: GoStructInput<"ACLPolicy">, q?: WriteOptions): Promise<WriteMeta> => {
      if (!policy.Name) throw new GoClientError("missing policy name");
      return (await this.write("PUT", `/v1/acl/policy/${policy.Name}`, { value: policy, type: "*ACLPolicy" }, undefined, q))[1];
    },
    /** `Delete`. */
    delete: async (policyName: string, q?: WriteOptions): Promise<WriteMeta> => {
      if (policyName === "") throw new GoClientError("missing policy name");
      return (await this.write("DELETE", `/v1/acl/policy/${policyName}`, undefined, undefined, q))[1];
    },
    /** `Info`. */
    info: (policyName: string, q?: QueryOptions) => {
      if (policyName === "") throw new GoClientError("missing policy name");
      return this.query<GoStruct<"ACLPolicy">>(`/v1/acl/policy/${policyName}`, "ACLPolicy", q);
    },
  };

  /** `ACLTokens()`. */
  readonly aclTokens = {
    /** `Bootstrap`: a PUT without a body. */
    bootstrap: (q?: WriteOptions) => this.write<GoStruct<"ACLToken">>("PUT", "/v1/acl/bootstrap", undefined, "ACLToken", q),
    /** `BootstrapOpts`: with a `BootstrapRequest`. */
    bootstrapOpts: (secret: string, q?: WriteOptions) =>
      this.write<GoStruct<"ACLToken">>("PUT", "/v1/acl/bootstrap", { value: { BootstrapSecret: secret }, type: "*BootstrapRequest" }, "ACLToken", q ?? {}),
    /** `List`. */
    list: (q?: QueryOptions) => this.query<Stub<"ACLTokenListStub">[] | null>("/v1/acl/tokens", "[]*ACLTokenListStub", q),
    /** `Create`: refuses a token that names its accessor. */
    create: (token: GoStructInput<"ACLToken">, q?: WriteOptions) => {
      if (token.AccessorID) throw new GoClientError("cannot specify Accessor ID");
      return this.write<GoStruct<"ACLToken">>("PUT", "/v1/acl/token", { value: token, type: "*ACLToken" }, "ACLToken", q);
    },
    /** `Upload`: a client token with its own IDs, PUT to its accessor's path. */
    upload: (token: GoStructInput<"ACLToken">, q?: WriteOptions) => {
      if (!token.AccessorID) throw new GoClientError("missing accessor ID");
      if (!token.SecretID) throw new GoClientError("missing secret ID");
      if (token.Type === "management") throw new GoClientError("cannot upload management tokens");
      return this.write<GoStruct<"ACLToken">>("PUT", `/v1/acl/token/${token.AccessorID}`, { value: token, type: "*ACLToken" }, "ACLToken", q);
    },
    /** `Update`. */
    update: (token: GoStructInput<"ACLToken">, q?: WriteOptions) => {
      if (!token.AccessorID) throw new GoClientError("missing accessor ID");
      return this.write<GoStruct<"ACLToken">>("PUT", `/v1/acl/token/${token.AccessorID}`, { value: token, type: "*ACLToken" }, "ACLToken", q);
    },
    /** `Delete`. */
    delete: async (accessorID: string, q?: WriteOptions): Promise<WriteMeta> => {
      if (accessorID === "") throw new GoClientError("missing accessor ID");
      return (await this.write("DELETE", `/v1/acl/token/${accessorID}`, undefined, undefined, q))[1];
    },
    /** `Info`. */
    info: (accessorID: string, q?: QueryOptions) => {
      if (accessorID === "") throw new GoClientError("missing accessor ID");
      return this.query<GoStruct<"ACLToken">>(`/v1/acl/token/${accessorID}`, "ACLToken", q);
    },
    /** `Self`. */
    self: (q?: QueryOptions) => this.query<GoStruct<"ACLToken">>("/v1/acl/token/self", "ACLToken", q),
    /** `UpsertOneTimeToken`: a PUT without a body. */
    upsertOneTimeToken: async (q?: WriteOptions): Promise<[GoStruct<"OneTimeToken">, WriteMeta]> => {
      const [resp, wm] = await this.write<GoStruct<"OneTimeTokenUpsertResponse"> | null>("PUT", "/v1/acl/token/onetime", undefined, "*OneTimeTokenUpsertResponse", q);
      if (resp === null) throw new GoClientError("no one-time token returned");
      return [resp.OneTimeToken as GoStruct<"OneTimeToken">, wm];
    },
    /** `ExchangeOneTimeToken`: refuses an empty secret before sending anything. */
    exchangeOneTimeToken: async (secret: string, q?: WriteOptions): Promise<[GoStruct<"ACLToken">, WriteMeta]> => {
      if (secret === "") throw new GoClientError("missing secret ID");
      const body = { value: { OneTimeSecretID: secret }, type: "*OneTimeTokenExchangeRequest" };
      const [resp, wm] = await this.write<GoStruct<"OneTimeTokenExchangeResponse"> | null>("PUT", "/v1/acl/token/onetime/exchange", body, "*OneTimeTokenExchangeResponse", q);
      if (resp === null) throw new GoClientError("no ACL token returned");
      return [resp.Token as GoStruct<"ACLToken">, wm];
    },
  };

  /** `ACLRoles()`. */
  readonly aclRoles = {
    /** `List`. */
    list: (q?: QueryOptions) => this.query<Stub<"ACLRoleListStub">[] | null>("/v1/acl/roles", "[]*ACLRoleListStub", q),
    /** `Create`: refuses a role that names its ID. */
    create: (role: GoStructInput<"ACLRole">, q?: WriteOptions) => {
      if (role.ID) throw new GoClientError("cannot specify ACL role ID");
      return this.write<GoStruct<"ACLRole">>("PUT", "/v1/acl/role", { value: role, type: "*ACLRole" }, "ACLRole", q);
    },
    /** `Update`. */
    update: (role: GoStructInput<"ACLRole">, q?: WriteOptions) => {
      if (!role.ID) throw new GoClientError("missing ACL role ID");
      return this.write<GoStruct<"ACLRole">>("PUT", `/v1/acl/role/${role.ID}`, { value: role, type: "*ACLRole" }, "ACLRole", q);
    },
    /** `Delete`. */
    delete: async (roleID: string, q?: WriteOptions): Promise<WriteMeta> => {
      if (roleID === "") throw new GoClientError("missing ACL role ID");
      return (await this.write("DELETE", `/v1/acl/role/${roleID}`, undefined, undefined, q))[1];
    },
    /** `Get`. */
    get: (roleID: string, q?: QueryOptions) => {
      if (roleID === "") throw new GoClientError("missing ACL role ID");
      return this.query<GoStruct<"ACLRole">>(`/v1/acl/role/${roleID}`, "ACLRole", q);
    },
    /** `GetByName`. */
    getByName: (roleName: string, q?: QueryOptions) => {
      if (roleName === "") throw new GoClientError("missing ACL role name");
      return this.query<GoStruct<"ACLRole">>(`/v1/acl/role/name/${roleName}`, "ACLRole", q);
    },
  };

  /** `Agent()`: `Self` fills the cache `NodeName`, `Datacenter` and `Region` answer from, as the Go client's `populateCache`. */
  readonly agent = {
    cache: { nodeName: "", datacenter: "", region: "" },
    /** `Self`. */
    self: async (): Promise<GoStruct<"AgentSelf">> => {
      let out: GoStruct<"AgentSelf">;
      try {
        [out] = await this.query<GoStruct<"AgentSelf">>("/v1/agent/self", "*AgentSelf");
      } catch (error) {
        throw new GoClientError(`failed querying self endpoint: ${(error as Error).message}`);
      }
      const { cache } = this.agent;
      if (cache.nodeName === "") cache.nodeName = out.Member.Name;
      if (cache.datacenter === "" && typeof out.Config?.Datacenter === "string") cache.datacenter = out.Config.Datacenter;
      if (cache.region === "" && typeof out.Config?.Region === "string") cache.region = out.Config.Region;
      return out;
    },
    /** `NodeName`. */
    nodeName: async (): Promise<string> => {
      if (this.agent.cache.nodeName === "") await this.agent.self();
      return this.agent.cache.nodeName;
    },
    /** `Datacenter`. */
    datacenter: async (): Promise<string> => {
      if (this.agent.cache.datacenter === "") await this.agent.self();
      return this.agent.cache.datacenter;
    },
    /** `Region`. */
    region: async (): Promise<string> => {
      if (this.agent.cache.region === "") await this.agent.self();
      return this.agent.cache.region;
    },
    /** `Health`: the answer decoded whatever its status (the reference answers 500 with the same JSON when not healthy). */
    health: async (): Promise<GoStruct<"AgentHealthResponse">> => {
      const response = await this.newRequest("GET", "/v1/agent/health").do();
      try {
        return decodeBody(response, "AgentHealthResponse") as GoStruct<"AgentHealthResponse">;
      } catch (error) {
        throw new GoClientError(`unable to unmarshal response with status ${response.status}: ${(error as Error).message}`);
      }
    },
    /** `Servers`. */
    servers: async (): Promise<string[] | null> => (await this.query<string[] | null>("/v1/agent/servers", "[]string"))[0],
    /** `Members`. */
    members: async (): Promise<Stub<"ServerMembers">> => (await this.query<Stub<"ServerMembers">>("/v1/agent/members", "*ServerMembers"))[0],
  };

  /** `Status()`. */
  readonly status = {
    /** `Leader`. */
    leader: async (): Promise<string> => (await this.query<string>("/v1/status/leader", "string"))[0],
  };

  /** `Regions()`. */
  readonly regions = {
    /** `List`. */
    list: async (): Promise<string[] | null> => (await this.query<string[] | null>("/v1/regions", "[]string"))[0],
  };

  /** `Operator()`: the metrics. */
  readonly operator = {
    /** `SchedulerGetConfiguration`. */
    schedulerGetConfiguration: (q?: QueryOptions) => this.query<GoStruct<"SchedulerConfigurationResponse">>("/v1/operator/scheduler/configuration", "SchedulerConfigurationResponse", q),
    /** `SchedulerSetConfiguration`. */
    schedulerSetConfiguration: (conf: GoStructInput<"SchedulerConfiguration">, q?: WriteOptions) =>
      this.write<GoStruct<"SchedulerSetConfigurationResponse">>("PUT", "/v1/operator/scheduler/configuration", { value: conf, type: "SchedulerConfiguration" }, "SchedulerSetConfigurationResponse", q),
    /** `SchedulerCASConfiguration`: `?cas=` the configuration's `ModifyIndex`. */
    schedulerCASConfiguration: (conf: GoStructInput<"SchedulerConfiguration">, q?: WriteOptions) =>
      this.write<GoStruct<"SchedulerSetConfigurationResponse">>("PUT", `/v1/operator/scheduler/configuration?cas=${String(conf.ModifyIndex ?? 0)}`, { value: conf, type: "SchedulerConfiguration" }, "SchedulerSetConfigurationResponse", q),
    /** `RaftGetConfiguration`: a plain read (`requireOK`, no query meta). */
    raftGetConfiguration: async (q?: QueryOptions): Promise<GoStruct<"RaftConfiguration">> => (await this.query<GoStruct<"RaftConfiguration">>("/v1/operator/raft/configuration", "RaftConfiguration", q))[0],
    /** `RaftRemovePeerByID`: a DELETE with `?id=`. */
    raftRemovePeerByID: async (id: string, q?: WriteOptions): Promise<void> => {
      await this.write("DELETE", `/v1/operator/raft/peer?id=${encodeURIComponent(id)}`, undefined, undefined, q);
    },
    /** `AutopilotServerHealth`. */
    autopilotServerHealth: (q?: QueryOptions) => this.query<GoStruct<"OperatorHealthReply">>("/v1/operator/autopilot/health", "OperatorHealthReply", q),
    /** `MetricsSummary`. */
    metricsSummary: (q?: QueryOptions) => this.query<Stub<"MetricsSummary">>("/v1/metrics", "*MetricsSummary", q),
    /** `Metrics`: the raw body (`rawQuery`), for `format=prometheus`. */
    metrics: async (q?: QueryOptions): Promise<Buffer> => (await this.newRequest("GET", "/v1/metrics").query(q ?? {}).doOK()).body,
  };

  /** `NodePools()`. */
  readonly nodePools = {
    /** `List`: as the server orders them (by name). */
    list: (q?: QueryOptions) => this.query<Stub<"NodePool">[] | null>("/v1/node/pools", "[]*NodePool", q),
    /** `PrefixList`. */
    prefixList: (prefix: string, q?: QueryOptions) => this.nodePools.list({ ...q, Prefix: prefix }),
    /** `Info`: an empty name is the client's own error. */
    info: async (name: string, q?: QueryOptions): Promise<[GoStruct<"NodePool">, QueryMeta]> => {
      if (name === "") throw new GoClientError("missing node pool name");
      return this.query<GoStruct<"NodePool">>(`/v1/node/pool/${pathEscape(name)}`, "NodePool", q);
    },
    /** `Register`: a PUT of the pool to `/v1/node/pools`. */
    register: async (pool: GoStructInput<"NodePool"> | null, q?: WriteOptions): Promise<WriteMeta> => {
      if (pool === null) throw new GoClientError("missing node pool");
      if ((pool.Name ?? "") === "") throw new GoClientError("missing node pool name");
      return (await this.write("PUT", "/v1/node/pools", { value: pool, type: "NodePool" }, undefined, q))[1];
    },
    /** `Delete`. */
    delete: async (name: string, q?: WriteOptions): Promise<WriteMeta> => {
      if (name === "") throw new GoClientError("missing node pool name");
      return (await this.write("DELETE", `/v1/node/pool/${pathEscape(name)}`, undefined, undefined, q))[1];
    },
  };

  /** `Scaling()`. */
  readonly scaling = {
    /** `ListPolicies`. */
    listPolicies: (q?: QueryOptions) => this.query<Stub<"ScalingPolicyListStub">[] | null>("/v1/scaling/policies", "[]*ScalingPolicyListStub", q),
    /** `GetPolicy`: the ID not escaped, as the Go client. */
    getPolicy: (id: string, q?: QueryOptions) => this.query<GoStruct<"ScalingPolicy">>(`/v1/scaling/policy/${id}`, "ScalingPolicy", q),
  };

  /** `System()`. */
  readonly system = {
    /** `GarbageCollect`. */
    garbageCollect: async (): Promise<void> => void (await this.write("PUT", "/v1/system/gc", undefined, undefined)),
    /** `ReconcileSummaries`. */
    reconcileSummaries: async (): Promise<void> => void (await this.write("PUT", "/v1/system/reconcile/summaries", undefined, undefined)),
  };

  /** `EventStream()`. */
  readonly eventStream = {
    /** `Stream`: see {@link EventChannel}. */
    stream: (topics: Readonly<Record<string, readonly string[]>>, index: GoInt64, q: QueryOptions, signal: AbortSignal) => openEventStream(this, topics, index, q, signal),
  };
}

/** `api.RegisterOptions`. */
export interface RegisterOptions {
  EnforceIndex?: boolean;
  ModifyIndex?: GoInt64;
  PolicyOverride?: boolean;
  PreserveCounts?: boolean;
  PreserveResources?: boolean;
  EvalPriority?: number;
  Submission?: GoStructInput<"JobSubmission"> | null;
}

/** `api.DeregisterOptions`. */
export interface DeregisterOptions {
  Purge?: boolean;
  Global?: boolean;
  EvalPriority?: number;
  NoShutdownDelay?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The event stream

/** `api.Events`, and the error the stream ended with. */
export interface Events {
  readonly Index: GoInt64;
  readonly Events: GoStruct<"Event">[] | null;
  readonly Err: Error | undefined;
}

/** Go's io.EOF: the stream ended between two frames. */
export const EOF = new GoClientError("EOF");

/** `ErrVariablePathNotFound`: `Variables.Read` of a path without a variable. */
export const ErrVariablePathNotFound = new GoClientError("variable not found");

/** `ErrCASConflict`: a check-and-set refused, with the variable in the way. */
export class ErrCASConflict extends Error {
  override readonly name = "ErrCASConflict";
  constructor(
    readonly checkIndex: GoInt64,
    readonly conflict: GoStruct<"Variable"> | null,
  ) {
    super(`cas conflict: expected ModifyIndex ${String(checkIndex)}; found ${String(conflict?.ModifyIndex ?? 0)}`);
  }
}

/** `cleanPathString`: a path trimmed of spaces and slashes at both ends. */
function trimPath(path: string): string {
  return path.replace(/^[ /]+|[ /]+$/g, "");
}

/** `v.Path = cleanPathString(v.Path)`: the variable's path cleaned in place, as the Go client does, and returned. */
function cleanPath(v: GoStructInput<"Variable">): string {
  v.Path = trimPath(v.Path ?? "");
  return v.Path;
}

/** `requireStatusIn`: any other status is an {@link UnexpectedResponseError}. */
function requireStatusIn(response: RawResponse, ...statuses: number[]): void {
  if (!statuses.includes(response.status)) throw new UnexpectedResponseError(response.status, response.body.toString("utf8").trim());
}

/**
 * Go's `io.ErrUnexpectedEOF`: what its HTTP client's body gives, and so its JSON decoder, when
 * the connection ends before a chunked body's last chunk (a server that stopped), or in the
 * middle of a value.
 */
export const UNEXPECTED_EOF = new GoClientError("unexpected EOF");

/**
 * The channel `Stream` returns: frames as the Go client's goroutine decodes them (heartbeats
 * skipped), at most 10 waiting, an error as the last one, then closed; cancelling the context
 * closes it without another frame.
 */
export interface EventChannel {
  /** The next frame, `"closed"` once the channel is closed, `"timeout"` after `timeoutMs` without either. */
  next(timeoutMs: number): Promise<Events | "closed" | "timeout">;
}

async function openEventStream(client: GoClient, topics: Readonly<Record<string, readonly string[]>>, index: GoInt64, q: QueryOptions, signal: AbortSignal): Promise<EventChannel> {
  const request = client.newRequest("GET", "/v1/event/stream").query({ ...q, signal, Params: { ...q.Params, index: String(index) } });
  for (const [topic, keys] of Object.entries(topics)) {
    if (keys.length === 0) request.params.add("topic", topic);
    for (const key of keys) request.params.add("topic", `${topic}:${key}`);
  }
  const response = await request.send();
  if (response.status !== 200) {
    const chunks: Buffer[] = [];
    for await (const chunk of response.stream ?? []) chunks.push(Buffer.from(chunk));
    const raw = Buffer.concat(chunks);
    const body = response.headers["content-encoding"] === "gzip" && raw.length > 0 ? gunzipSync(raw) : raw;
    throw new UnexpectedResponseError(response.status, body.toString("utf8").trim());
  }

  const queue: Events[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const push = (events: Events) => {
    queue.push(events);
    notify();
  };
  signal.addEventListener("abort", () => {
    closed = true;
    notify();
  });

  // The Go client's goroutine: decode values one after another until an error or the context's end.
  void (async () => {
    let pending = "";
    try {
      for await (const chunk of response.stream ?? []) {
        pending += Buffer.from(chunk).toString("utf8");
        for (;;) {
          const cut = nextJsonValue(pending);
          if (cut === undefined) break;
          pending = pending.slice(cut.end);
          if (signal.aborted) return;
          if (cut.error !== undefined) return push({ Index: 0, Events: null, Err: cut.error });
          let events: GoStruct<"Events">;
          try {
            events = decodeStruct(parseJson(cut.text), "Events");
          } catch (error) {
            return push({ Index: 0, Events: null, Err: error instanceof GoDecodeError ? error : new GoClientError(String(error)) });
          }
          if (events.Index === 0 && (events.Events ?? []).length === 0) continue; // a heartbeat
          push({ Index: events.Index, Events: events.Events, Err: undefined });
        }
      }
      if (signal.aborted) return;
      push({ Index: 0, Events: null, Err: pending.trim() === "" ? EOF : UNEXPECTED_EOF });
    } catch (error) {
      // undici's words for a connection closed before the body's end: Go reads io.ErrUnexpectedEOF.
      const cutShort = (error as { code?: unknown }).code === "UND_ERR_SOCKET" || /other side closed/.test((error as Error).message);
      if (!signal.aborted) push({ Index: 0, Events: null, Err: cutShort ? UNEXPECTED_EOF : new GoClientError((error as Error).message) });
    } finally {
      closed = true;
      notify();
    }
  })();

  return {
    async next(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (signal.aborted) return "closed";
        const events = queue.shift();
        if (events !== undefined) return events;
        if (closed) return "closed";
        const left = deadline - Date.now();
        if (left <= 0) return "timeout";
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
  };
}

/**
 * The first JSON value of a stream's text, as `json.Decoder` finds it: leading whitespace skipped;
 * undefined until the value is complete; an error for text that cannot start a value (the agent's
 * closing line, `subscription closed by server…`), with Go's message.
 */
function nextJsonValue(text: string): { text: string; end: number; error?: undefined } | { error: Error; end: number; text?: undefined } | undefined {
  const start = text.search(/\S/);
  if (start === -1) return undefined;
  const first = text[start] as string;
  if (first !== "{") {
    // The agent writes objects only, but for the line it ends a stream with: Go's decoder fails on its first letter.
    return { error: new GoClientError(`invalid character '${first}' looking for beginning of value`), end: text.length };
  }
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return { text: text.slice(start, i + 1), end: i + 1 };
    }
  }
  return undefined;
}
