/**
 * An allocation's files and its tasks' logs, as the reference's client serves them
 * (`command/agent/fs_endpoint.go`, `client/fs_endpoint.go`, `nomad/client_fs_endpoint.go`), over
 * the simulated allocation directory (`scheduler/alloc-dir.ts`):
 *
 * - `/v1/client/fs/ls/<alloc>?path=` and `/stat/<alloc>?path=`: `AllocFileInfo` (`read-fs`);
 * - `/cat/<alloc>?path=`, `/readat/<alloc>?path=&offset=&limit=`: the file's bytes (`read-fs`);
 * - `/stream/<alloc>?path=&offset=&origin=&follow=`: the file in frames (`read-fs`);
 * - `/logs/<alloc>?task=&type=&plain=&follow=&origin=&offset=`: a task's stdout or stderr, in
 *   frames or plain (`read-logs` or `read-fs`).
 *
 * A frame is the reference's `StreamFrame` as its JSON codec writes it, the objects one after the
 * other: `{"Offset":…,"Data":"<base64>","File":"alloc/logs/web.stdout.0"}`, `{}` a heartbeat.
 * Answers are written straight to the socket, never compressed (see {@link rawResponse}); a followed
 * stream as the task writes on the agent's clock, ending when the task ends.
 *
 * The checks run in the reference's order: the query's parameters (400), then the token, the
 * allocation (`404 Unknown allocation "<id>"`), the capability in the allocation's namespace (403),
 * its node, then the path or task.
 *
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OutgoingHttpHeaders } from "node:http";
import { goQuote } from "../../go/strings.js";
import { parseGoBool, parseGoInt } from "../../go/strconv.js";
import { goTime } from "../../go/time.js";
import { checkRegion } from "../base/errors.js";
import { namespaceAccess } from "../domain/acl.js";
import { allocationJob } from "../list/endpoints.js";
import { parseQueryOptions } from "../list/query.js";
import {
  allocDirAt,
  AllocPathError,
  contentTypeOf,
  DIR_SIZE,
  listEntries,
  nextChangeMs,
  readableFile,
  resolveAllocPath,
  statEntry,
  taskLog,
  taskNames,
  tasksEnded,
  type AllocEntry,
  type AllocFileInfo,
} from "../scheduler/alloc-dir.js";
import type { Allocation, Job } from "../state/model.js";
import { HttpError, badRequest, notFound } from "./errors.js";
import { byMethod, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

/** The reference's largest frame (`streamFrameSize`, 64 KiB): more data is split over several. */
export const STREAM_FRAME_BYTES = 64 * 1024;

/** How often a followed framed stream sends a heartbeat (`{}`) while nothing is written: the reference's `streamHeartbeatRate`, on the agent's clock. */
export const STREAM_HEARTBEAT_MS = 1_000;

/** The reference's `ErrInvalidMethod`, its answer for `/v1/client/fs/<anything else>`. */
const INVALID_METHOD = "Invalid method";

/** What a request reads: its allocation, and the job version that allocation runs. */
interface Target {
  readonly alloc: Allocation;
  readonly job: Job | null;
}

/** A `strconv.ParseInt(s, 10, 64)` of a query parameter, or the reference's 400 with `prefix`. */
function decimalParameter(value: string, prefix: string): number {
  const parsed = /^[+-]?[0-9]+$/.test(value) ? parseGoInt(value) : undefined;
  if (parsed === undefined) throw badRequest(`${prefix}: strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  if (!parsed.ok) throw badRequest(`${prefix}: ${parsed.error}`);
  // Offsets and limits past 2^53 are past every simulated file.
  return Number(parsed.value);
}

/** A `strconv.ParseBool` of a query parameter (`fallback` when absent), or the reference's 400. */
function boolParameter(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  if (value === null || value === "") return fallback;
  const parsed = parseGoBool(value);
  if (!parsed.ok) throw badRequest(`failed to parse ${name} field to boolean: ${parsed.error}`);
  return parsed.value;
}

/** `origin`: `start` (the default) or `end`, else the reference's 400. */
function originParameter(query: URLSearchParams): "start" | "end" {
  const origin = query.get("origin") ?? "";
  if (origin === "" || origin === "start") return "start";
  if (origin === "end") return "end";
  throw badRequest("origin must be start or end");
}

/**
 * The allocation of the request, after the region and the token, and the caller's capability in
 * its namespace (one of `capabilities`); its node must be known (`400 Unknown node`) and up
 * (`404 No path to node`: the reference's server has no connection to a node that is down).
 */
function targetOf(context: RouteContext, request: FastifyRequest, allocId: string, capabilities: readonly string[]): Target {
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  const caller = context.acl.authenticate(options.token);
  const alloc = context.store.tables.allocs.get(allocId);
  if (alloc === undefined) throw notFound(`Unknown allocation ${goQuote(allocId)}`);
  namespaceAccess(caller, alloc.Namespace, capabilities);
  const node = context.store.tables.nodes.get(alloc.NodeID);
  if (node === undefined) throw badRequest(`Unknown node ${goQuote(alloc.NodeID)}`);
  if (node.Status === "down") throw notFound("No path to node");
  return { alloc, job: allocationJob(alloc, context.store) };
}

/** An entry as `cstructs.AllocFileInfo` (`ContentType` only from `stat`, as the reference's). */
function fileInfo(entry: AllocEntry, withContentType: boolean): AllocFileInfo {
  const info = { Name: entry.name, IsDir: entry.isDir, Size: entry.isDir ? DIR_SIZE : entry.content.length, FileMode: entry.mode, ModTime: goTime(entry.modMs) };
  return withContentType ? { ...info, ContentType: contentTypeOf(entry) } : info;
}

/**
 * The reference's status for a path it cannot read: a missing one is 404 for `ls` and `stat`
 * (`IsErrNoSuchFileOrDirectory`) and 400 for the streams (their `Stat` failing); the others,
 * which the reference answers 500 for `ls` and `stat`, are 400 here (the client's mistake), but a
 * secret, 403.
 */
function pathRefusal(error: unknown, listing: boolean): unknown {
  if (!(error instanceof AllocPathError)) return error;
  if (error.kind === "missing" && listing) return notFound(error.message);
  if (error.kind === "secret") return new HttpError(403, error.message);
  return badRequest(error.message);
}

/** Runs `read`, turning an {@link AllocPathError} into the reference's answer. */
function withPath<T>(listing: boolean, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw pathRefusal(error, listing);
  }
}

/** A frame as the reference's JSON codec writes a `StreamFrame` (empty fields left out). */
function frameJson(file: string, data: Buffer, endOffset: number): string {
  return JSON.stringify({ Offset: endOffset, Data: data.toString("base64"), File: file });
}

/** `bytes` from `offset`, as frames of at most {@link STREAM_FRAME_BYTES} (each frame's `Offset` is where its data ends). */
function framesOf(file: string, bytes: Buffer, offset: number): string {
  let text = "";
  for (let start = 0; start < bytes.length; start += STREAM_FRAME_BYTES) {
    const data = bytes.subarray(start, start + STREAM_FRAME_BYTES);
    text += frameJson(file, data, offset + start + data.length);
  }
  return text;
}

/** What a stream reads at each moment: a file's bytes now, whether it will grow, and when next. */
interface StreamSource {
  /** The frame's `File`. */
  readonly file: string;
  /** The bytes now, and whether more may come (undefined: the allocation is gone). */
  read(): { readonly content: Buffer; readonly ended: boolean; readonly nextMs: number | undefined } | undefined;
}

/** How a stream is written. */
interface StreamShape {
  readonly plain: boolean;
  readonly follow: boolean;
  /** Where to start, resolved against the file's size at the request. */
  readonly offset: number;
  /** The most bytes to send (0: no limit). */
  readonly limit: number;
  readonly contentType: string;
}

/**
 * Takes the response from fastify and writes its head: a file's bytes and a log's frames go to the
 * socket as they are, never compressed (so that each frame of a followed stream arrives when
 * written, and because @fastify/compress passes a payload that happens to start with a zlib
 * header's two bytes, such as the text `80`, through uncompressed under `Content-Encoding: gzip`).
 */
function rawResponse(reply: FastifyReply, contentType: string, length?: number) {
  reply.hijack();
  const response = reply.raw;
  response.socket?.setNoDelay(true);
  // Headers earlier hooks set on the reply go out too (the reply is not sent through fastify).
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name.toLowerCase()] = value;
  const sized = length === undefined ? { "cache-control": "no-cache" } : { "content-length": length };
  response.writeHead(200, { ...headers, "content-type": contentType, vary: "Accept-Encoding", ...sized });
  return response;
}

/** A stream that is not followed: what the file holds now from the offset, at once. */
function sendOnce(reply: FastifyReply, source: StreamSource, shape: StreamShape): undefined {
  const content = source.read()?.content ?? Buffer.alloc(0);
  let bytes = content.subarray(Math.min(shape.offset, content.length));
  if (shape.limit > 0) bytes = bytes.subarray(0, shape.limit);
  const body = shape.plain ? bytes : Buffer.from(framesOf(source.file, bytes, shape.offset));
  rawResponse(reply, shape.contentType, body.length).end(body);
  return undefined;
}

/**
 * A followed stream, written to the socket as the file grows: after each write to the
 * allocations (the task ended?), at each scripted line's time and each heartbeat on the agent's
 * clock. It ends when the tasks end (what they wrote sent), the allocation is gone, the client
 * leaves or the agent stops.
 */
async function sendFollowing(context: RouteContext, reply: FastifyReply, source: StreamSource, shape: StreamShape): Promise<undefined> {
  const { store } = context;
  const { clock } = context.cluster;
  const response = rawResponse(reply, shape.contentType);
  const gone = new AbortController();
  response.once("close", () => gone.abort());
  if (response.socket === null || response.socket.destroyed) gone.abort();
  let sent = shape.offset;
  let heartbeatDue = clock.nowMs() + STREAM_HEARTBEAT_MS;
  try {
    while (!gone.signal.aborted && !store.closed) {
      const index = store.tableIndex("allocs");
      const now = source.read();
      if (now === undefined) break;
      if (now.content.length > sent) {
        const bytes = now.content.subarray(sent);
        response.write(shape.plain ? bytes : framesOf(source.file, bytes, sent));
        sent = now.content.length;
        heartbeatDue = clock.nowMs() + STREAM_HEARTBEAT_MS;
      } else if (!shape.plain && clock.nowMs() >= heartbeatDue) {
        // Not to a client that has not read the last one: what a stream holds for it stays bounded by the log.
        if (response.writableLength === 0) response.write("{}");
        heartbeatDue = clock.nowMs() + STREAM_HEARTBEAT_MS;
      }
      if (now.ended) break;
      // One wait at a time: a write to the allocations, the next line's time, or the heartbeat's.
      const wake = new AbortController();
      const stop = () => wake.abort();
      gone.signal.addEventListener("abort", stop, { once: true });
      const dueMs = Math.min(now.nextMs ?? Number.POSITIVE_INFINITY, shape.plain ? Number.POSITIVE_INFINITY : heartbeatDue);
      const timer = Number.isFinite(dueMs) ? clock.setTimer(Math.max(0, dueMs - clock.nowMs()), stop) : undefined;
      await store.waitForChange(["allocs"], index, wake.signal);
      if (timer !== undefined) clock.clearTimer(timer);
      gone.signal.removeEventListener("abort", stop);
    }
  } finally {
    if (!response.destroyed) response.end();
  }
  return undefined;
}

/** Sends a stream of `source`, followed or not. */
function sendStream(context: RouteContext, reply: FastifyReply, source: StreamSource, shape: StreamShape): Promise<undefined> | undefined {
  return shape.follow ? sendFollowing(context, reply, source, shape) : sendOnce(reply, source, shape);
}

/** The allocation as the store holds it now, and its job version: a stream reads them again at every wake. */
function currentTarget(context: RouteContext, allocId: string): Target | undefined {
  const alloc = context.store.tables.allocs.get(allocId);
  return alloc === undefined ? undefined : { alloc, job: allocationJob(alloc, context.store) };
}

/** A file of the allocation directory as a stream's source. */
function fileSource(context: RouteContext, allocId: string, segments: string, asked: string): StreamSource {
  return {
    file: asked,
    read: () => {
      const target = currentTarget(context, allocId);
      if (target === undefined) return undefined;
      const now = context.cluster.clock.nowMs();
      const entry = allocDirAt(target.alloc, target.job, now).get(segments);
      return { content: entry?.content ?? Buffer.alloc(0), ended: tasksEnded(target.alloc), nextMs: nextChangeMs(target.alloc, target.job, now) };
    },
  };
}

/** The content type of a file's bytes sent plain: the reference sniffs them and never sends HTML as such (`noxssrw`). */
function plainType(entry: AllocEntry): string {
  return contentTypeOf(entry) === "application/octet-stream" ? "application/octet-stream" : "text/plain; charset=utf-8";
}

/** `ls`: the directory's entries (`/` when no path is given). */
function list(context: RouteContext, request: FastifyRequest, allocId: string): Result {
  const path = queryOf(request).get("path") || "/";
  const { alloc, job } = targetOf(context, request, allocId, ["read-fs"]);
  const entries = withPath(true, () => listEntries(allocDirAt(alloc, job, context.cluster.clock.nowMs()), resolveAllocPath(alloc.ID, path)));
  return { body: entries.map((entry) => fileInfo(entry, false)) };
}

/** `stat`: one entry, with its content type. */
function stat(context: RouteContext, request: FastifyRequest, allocId: string): Result {
  const path = queryOf(request).get("path") ?? "";
  if (path === "") throw badRequest("must provide a file name");
  const { alloc, job } = targetOf(context, request, allocId, ["read-fs"]);
  const entry = withPath(true, () => statEntry(allocDirAt(alloc, job, context.cluster.clock.nowMs()), resolveAllocPath(alloc.ID, path)));
  return { body: fileInfo(entry, true) };
}

/** The parameters the file streams share, read in the reference's order. */
type FileRead = "cat" | "readat" | "stream";

/** `cat`, `readat` and `stream`: a file's bytes, plain (`cat`, `readat`) or framed (`stream`, followed by default). */
function readFile(context: RouteContext, request: FastifyRequest, reply: FastifyReply, allocId: string, kind: FileRead): Promise<undefined> | undefined {
  const query = queryOf(request);
  const path = query.get("path") ?? "";
  if (path === "") throw badRequest("must provide a file name");
  let offset = 0;
  let limit = 0;
  let follow = false;
  let origin: "start" | "end" = "start";
  if (kind === "readat") {
    offset = decimalParameter(query.get("offset") ?? "", "error parsing offset");
    const limitText = query.get("limit") ?? "";
    if (limitText !== "") limit = decimalParameter(limitText, "error parsing limit");
  } else if (kind === "stream") {
    follow = boolParameter(query, "follow", true);
    const offsetText = query.get("offset") ?? "";
    if (offsetText !== "") offset = decimalParameter(offsetText, "error parsing offset");
    origin = originParameter(query);
  }
  const { alloc, job } = targetOf(context, request, allocId, ["read-fs"]);
  const resolved = withPath(false, () => resolveAllocPath(alloc.ID, path));
  const entry = withPath(false, () => readableFile(allocDirAt(alloc, job, context.cluster.clock.nowMs()), resolved, path));
  if (origin === "end") offset = Math.max(entry.content.length - offset, 0);
  // A negative offset from the start: the reference's Seek fails.
  if (offset < 0) throw badRequest(`can't seek to offset ${offset}: seek ${resolved.hostPath}: invalid argument`);
  const plain = kind !== "stream";
  const source = fileSource(context, alloc.ID, resolved.segments.join("/"), path);
  return sendStream(context, reply, source, { plain, follow, offset, limit, contentType: plain ? plainType(entry) : "text/plain; charset=utf-8" });
}

/** `logs`: a task's stdout or stderr, framed unless `plain`, followed on request. */
function logs(context: RouteContext, request: FastifyRequest, reply: FastifyReply, allocId: string): Promise<undefined> | undefined {
  const query = queryOf(request);
  const task = query.get("task") ?? "";
  if (task === "") throw badRequest("must provide task name");
  const follow = boolParameter(query, "follow", false);
  const plain = boolParameter(query, "plain", false);
  const type = query.get("type") ?? "";
  if (type !== "stdout" && type !== "stderr") throw badRequest("must provide log type (stdout/stderr)");
  const offsetText = query.get("offset") ?? "";
  const offset = offsetText === "" ? 0 : decimalParameter(offsetText, "error parsing offset");
  const origin = originParameter(query);
  const { alloc, job } = targetOf(context, request, allocId, ["read-fs", "read-logs"]);
  if (!taskNames(alloc).includes(task)) throw badRequest(`unknown task name ${goQuote(task)}`);
  if (alloc.TaskRun?.StartedAt == null) throw notFound(`task ${goQuote(task)} not started yet. No logs available`);
  const size = taskLog(alloc, job, task, type, context.cluster.clock.nowMs()).content.length;
  // The reference's findClosest: from the end, or from the start, a negative offset counting back; clamped to the file.
  const back = origin === "end" ? -offset : offset;
  const start = back < 0 ? Math.max(size + back, 0) : Math.min(back, size);
  const source: StreamSource = {
    file: `alloc/logs/${task}.${type}.0`,
    read: () => {
      const target = currentTarget(context, allocId);
      if (target === undefined) return undefined;
      const log = taskLog(target.alloc, target.job, task, type, context.cluster.clock.nowMs());
      return { content: log.content, ended: tasksEnded(target.alloc), nextMs: log.nextMs };
    },
  };
  // The reference forces these, whatever the bytes.
  return sendStream(context, reply, source, { plain, follow, offset: start, limit: 0, contentType: plain ? "text/plain" : "application/json" });
}

/** The request's path as the reference's `req.URL.Path` reads it: percent-escapes decoded (kept as sent when they are malformed). */
function decodedPath(request: FastifyRequest): string {
  const path = new URL(request.url, "http://agent").pathname;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The one handler of `/v1/client/fs/*`, dispatching on the next segment as the reference's `FsRequest`. */
function fsRequest(context: RouteContext): Handler {
  return async (request, reply) => {
    const path = decodedPath(request).slice("/v1/client/fs/".length);
    const slash = path.indexOf("/");
    const kind = slash < 0 ? "" : path.slice(0, slash);
    const allocId = path.slice(slash + 1);
    const known = ["ls", "stat", "readat", "cat", "stream", "logs"];
    if (!known.includes(kind)) throw new HttpError(404, INVALID_METHOD);
    if (allocId === "") throw badRequest("must provide a valid alloc id");
    switch (kind) {
      case "ls":
        return list(context, request, allocId);
      case "stat":
        return stat(context, request, allocId);
      case "logs":
        return logs(context, request, reply, allocId);
      default:
        return readFile(context, request, reply, allocId, kind as FileRead);
    }
  };
}

/** Registers `/v1/client/fs/*` (every method, as the reference's handler, which does not look at it). */
export function clientFsRoutes(app: FastifyInstance, context: RouteContext): void {
  const handler = fsRequest(context);
  app.all("/v1/client/fs/*", byMethod({ GET: handler, PUT: handler, POST: handler, DELETE: handler }));
}
