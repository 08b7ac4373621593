/**
 * Helpers for testing the agent over a real socket: start one per test file, and a small HTTP
 * client (undici) that returns the raw body bytes, so compression is checked for real.
 */
import { request as undiciRequest } from "undici";
import { gunzipSync, inflateSync } from "node:zlib";
import { afterAll, beforeAll } from "vitest";
import { parseJson } from "../../src/json.js";
import { startAgent, type Agent, type AgentOptions } from "../../src/server/index.js";

export interface Response {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body as received (compressed when the server compressed it). */
  readonly raw: Buffer;
  /** The body, decompressed. */
  readonly text: string;
  /** The body parsed as JSON, integers beyond 2^53 as bigints. */
  json<T = unknown>(): T;
}

export interface RequestOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** Sends one request; never decompresses on its own. */
export async function send(url: string, options: RequestOptions = {}): Promise<Response> {
  const response = await undiciRequest(url, {
    method: (options.method ?? "GET") as "GET",
    headers: options.headers,
    body: options.body,
    signal: options.signal,
  });
  const raw = Buffer.from(await response.body.arrayBuffer());
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  const encoding = headers["content-encoding"];
  const text = (encoding === "gzip" ? gunzipSync(raw) : encoding === "deflate" ? inflateSync(raw) : raw).toString("utf8");
  return { status: response.statusCode, headers, raw, text, json: () => parseJson(text) as never };
}

/** A running agent for the tests of one file, with helpers bound to its URL. */
export interface TestAgent {
  readonly agent: Agent;
  readonly url: string;
  get(path: string, options?: RequestOptions): Promise<Response>;
  put(path: string, body: unknown, options?: RequestOptions): Promise<Response>;
  /** Registers a job and returns the parsed response. */
  register(job: Record<string, unknown>, query?: string): Promise<{ EvalID: string; Index: number; JobModifyIndex: number; EvalCreateIndex: number }>;
}

/** Starts an agent (silent, no demo data unless asked) before the file's tests and stops it after. */
export function useAgent(options: AgentOptions = {}): TestAgent {
  let agent: Agent | undefined;
  beforeAll(async () => {
    agent = await startAgent({ port: 0, demo: false, logLevel: "silent", ...options });
  });
  afterAll(async () => {
    await agent?.close();
  });
  const running = () => {
    if (agent === undefined) throw new Error("the agent is not running");
    return agent;
  };
  const helpers: TestAgent = {
    get agent() {
      return running();
    },
    get url() {
      return running().url;
    },
    get: (path, options) => send(running().url + path, options),
    put: (path, body, options) => send(running().url + path, { method: "PUT", ...options, body: typeof body === "string" ? body : JSON.stringify(body) }),
    register: async (job, query = "") => {
      const response = await helpers.put(`/v1/jobs${query}`, { Job: job });
      if (response.status !== 200) throw new Error(`register failed: ${response.status} ${response.text}`);
      return response.json();
    },
  };
  return helpers;
}

/** A minimal valid job. */
export function job(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { ID: id, TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "mock" }] }], ...fields };
}

/** Polls until `check` passes or the time is up (for asynchronous state changes of the scheduler). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
