/**
 * Helpers for testing the agent over a real socket: start one per test file, and a small HTTP
 * client (undici) that returns the raw body bytes, so compression is checked for real.
 */
import { request as undiciRequest } from "undici";
import { gunzipSync, inflateSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { parseJson } from "../../src/json.js";
import { startAgent, type Agent, type AgentOptions } from "../../src/server/index.js";
import { connectServer, fromPglite, type Database, type PgliteLike } from "../../src/server/state/postgres/database.js";
import { PostgresStore } from "../../src/server/state/postgres/store.js";
import { POSTGRES_URL_VARIABLE } from "../sql/databases.js";

/**
 * The environment variable that runs the agent's tests on PostgreSQL (`postgres`; the vitest
 * project `agent on postgres` sets it): the server named by `BEXPR_TEST_POSTGRES_URL` when one is,
 * PGlite otherwise, each agent in a fresh schema.
 */
export const AGENT_STORE_VARIABLE = "BEXPR_TEST_AGENT_STORE";

/** Whether this run's agents keep their state in PostgreSQL. */
export const ON_POSTGRES = process.env[AGENT_STORE_VARIABLE] === "postgres";

/** The PGlite instance the agents of this worker's test files share (each in its own schema; the agent's projects run without isolation): an instance costs seconds. */
let pglite: Promise<PGlite> | undefined;

/** The PostgreSQL server the suite runs against, if any: `BEXPR_TEST_POSTGRES_URL`, where empty says none (PGlite alone). */
export const SERVER_URL: string | undefined = process.env[POSTGRES_URL_VARIABLE] || undefined;

/** A store for one test agent: memory, or a fresh PostgreSQL schema (and how to drop it afterwards). */
export async function testStore(): Promise<{ store: AgentOptions["store"]; drop: () => Promise<void> }> {
  if (!ON_POSTGRES) return { store: "memory", drop: async () => {} };
  const schema = `agent_${randomBytes(6).toString("hex")}`;
  const url = SERVER_URL;
  if (url) {
    return {
      store: { url, schema },
      drop: async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
      },
    };
  }
  pglite ??= PGlite.create();
  return { store: { pglite: await pglite, schema }, drop: async () => {} };
}

/**
 * The database of a store {@link testStore} gave (the server's, through its own pools, or the
 * PGlite instance), for a test that reads the tables or opens a `PostgresStore` itself; close it
 * when done.
 */
export async function openTestDatabase(store: AgentOptions["store"]): Promise<Database> {
  const { url, pglite } = (typeof store === "object" && store !== null ? store : {}) as { url?: string; pglite?: PgliteLike };
  if (url !== undefined) return connectServer(url);
  if (pglite !== undefined) return fromPglite(pglite);
  throw new Error("not a PostgreSQL store");
}

/** Two stores on one fresh schema, as two agents sharing it (see {@link withSharedSchema}). */
export interface SharedSchema<Watched> {
  readonly schema: string;
  /** The store opened first, on a database of its own. */
  readonly first: PostgresStore;
  readonly firstDatabase: Database;
  /** The store opened second, on its database as the test's `watch` wrapped it. */
  readonly second: PostgresStore;
  /** What `watch` made of the second store's database (a recorder of its statements, a hold on its answers). */
  readonly watched: Watched;
}

/**
 * Runs `use` with two stores on one fresh schema of this run's PostgreSQL (see {@link ON_POSTGRES}),
 * each on a database of its own as two agents sharing a state are, the second seen through
 * `watch`; then closes both stores and their databases, and drops the schema.
 */
export async function withSharedSchema<Watched extends { readonly database: Database }, T>(
  watch: (database: Database) => Watched,
  use: (shared: SharedSchema<Watched>) => Promise<T>,
): Promise<T> {
  const { store, drop } = await testStore();
  const { schema } = store as { schema: string };
  const [firstDatabase, secondDatabase] = [await openTestDatabase(store), await openTestDatabase(store)];
  const watched = watch(secondDatabase);
  const first = await PostgresStore.open(firstDatabase, { schema });
  const second = await PostgresStore.open(watched.database, { schema });
  try {
    return await use({ schema, first, firstDatabase, second, watched });
  } finally {
    first.close();
    second.close();
    await Promise.all([firstDatabase.close(), secondDatabase.close()]);
    await drop();
  }
}

/** Starts an agent on this run's store (see {@link ON_POSTGRES}); its schema is dropped when it closes. */
export async function startTestAgent(options: AgentOptions = {}): Promise<Agent> {
  const { store, drop } = await testStore();
  const agent = await startAgent({ store, ...options }).catch(async (error: unknown) => {
    await drop();
    throw error;
  });
  const close = agent.close.bind(agent);
  return Object.assign(Object.create(agent) as Agent, { close: () => close().then(drop) });
}

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
    agent = await startTestAgent({ port: 0, demo: false, logLevel: "silent", ...options });
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

/**
 * Waits until the simulated scheduler has done the work that needs no waiting (the evaluations of
 * the jobs just registered): the agent's index stays put for `quietMs`. On a store of its own the
 * scheduler's writes follow at once; on PostgreSQL each is a transaction, a few milliseconds later,
 * and a test that reads an index then parks a blocking query on it must not race them.
 */
export async function settled(url: string, quietMs = 150): Promise<void> {
  const index = async () => (await send(`${url}/v1/jobs?namespace=*&stale`)).headers["x-svc-index"];
  let last = await index();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = await index();
    if (now === last) return;
    last = now;
  }
}
