/**
 * Fixtures and isolation for test suites: the agent's state taken as a snapshot and put back, the
 * state emptied back to a new agent's, named snapshots kept for clients over HTTP, and the data
 * an agent starts from (`--data FILE`: a snapshot, or a fixture).
 *
 * After a restore or a reset the simulated scheduler drops its scheduled steps and takes the work
 * up again from the new state, as a new leader does. What a test configures besides the state
 * (scenario rules, faults, the request journal, the clock) is left as it is.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { parseJson, stringifyJson } from "../../json.js";
import type { Cluster } from "../scheduler/cluster.js";
import { invalid, missing } from "../base/errors.js";
import { loadFixture, readFixture, type AgentFixture, type CheckedFixture } from "./fixture.js";
import { readSnapshot, restoreSnapshot, takeSnapshot, type AgentSnapshot, type SnapshotState } from "./snapshot.js";
import type { PostgresStore } from "../state/postgres/store.js";
import { TABLE_NAMES, type Rows, type Store, type TableName } from "../state/store.js";

/** The most named snapshots an agent keeps (`PUT /_bexpr/snapshots/<name>`). */
export const MAX_NAMED_SNAPSHOTS = 64;

/** The most bytes of named snapshots an agent keeps (their JSON text), all together: 256 MiB. */
export const NAMED_SNAPSHOTS_BYTES = 256 * 1024 * 1024;

/** The largest data file read (`--data`): 256 MiB of JSON. */
export const MAX_DATA_FILE_BYTES = 256 * 1024 * 1024;

/** A snapshot's name: 1 to 128 letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A named snapshot, as `GET /_bexpr/snapshots` lists it. */
export interface NamedSnapshotInfo {
  /** Its name. */
  readonly Name: string;
  /** The index of the state it holds. */
  readonly Index: number;
  /** When it was taken, on the agent's clock (RFC 3339). */
  readonly Time: string;
  /** The bytes of its JSON text, as counted against {@link NAMED_SNAPSHOTS_BYTES}. */
  readonly Bytes: number;
}

/** The data an agent starts from: a snapshot, or a fixture, read and checked. */
export type AgentData = { readonly kind: "snapshot"; readonly document: unknown } | { readonly kind: "fixture"; readonly fixture: CheckedFixture };

/** A data document of the `data` option, or the path of its file. */
export type AgentDataSource = string | AgentSnapshot | AgentFixture;

/** A document that says it is a snapshot (a fixture has no `Format`). */
function isSnapshotDocument(document: unknown): boolean {
  return typeof document === "object" && document !== null && !Array.isArray(document) && Object.hasOwn(document, "Format");
}

/**
 * Reads the data an agent starts from: the file's JSON (int64 values exact) or the document given,
 * a snapshot when it has a `Format` (checked when it is restored), a fixture otherwise (checked
 * now). `region` is the agent's.
 *
 * @throws AgentDataError for a fixture that cannot be used; Error for a file that cannot be read or is not JSON.
 */
export function readAgentData(source: AgentDataSource, region: string): AgentData {
  let document: unknown = source;
  if (typeof source === "string") {
    const size = statSync(source).size;
    if (size > MAX_DATA_FILE_BYTES) throw new Error(`the file is ${size} bytes long; a data file is at most ${MAX_DATA_FILE_BYTES}`);
    const text = readFileSync(source, "utf8");
    try {
      document = parseJson(text);
    } catch (error) {
      throw new Error(`not valid JSON: ${(error as Error).message}`);
    }
  }
  if (isSnapshotDocument(document)) return { kind: "snapshot", document };
  return { kind: "fixture", fixture: readFixture(document, region) };
}

/** What a {@link StateControl} works on. */
export interface StateControlOptions {
  readonly store: Store;
  readonly cluster: Cluster;
  /** The shared store, when the state is in PostgreSQL (reads catch up with it first). */
  readonly shared?: PostgresStore;
  /** The agent's datacenter (a fixture's nodes' default). */
  readonly datacenter: string;
  /** Epoch milliseconds on the agent's clock. */
  readonly now: () => number;
  /** Told after a restore or a reset put its state, for what is kept outside the tables (the ACL bootstrap's index). */
  readonly onRestored?: () => void;
}

/** What the agent's configuration made at start, which a reset keeps: the rest of the state is emptied. */
export interface ConfiguredState {
  /** The namespaces of the `namespaces` option (besides `default`). */
  readonly namespaces: readonly string[];
  /** The policies of the `acl.policies` option. */
  readonly policies: readonly string[];
  /** The secrets of the `acl.tokens` option and `acl.bootstrapToken`. */
  readonly tokenSecrets: readonly string[];
  /** The store's index before the configuration's writes: the tokens created after it are the configuration's too (those without a secret given). */
  readonly since: number;
}

/** A named snapshot: its text (what `GET` answers and a restore reads) and how it is listed. */
interface NamedSnapshot {
  readonly text: Buffer;
  readonly info: NamedSnapshotInfo;
}

/** The agent's snapshots, restores, reset and named snapshots (see the module's description). */
export class StateControl {
  readonly #options: StateControlOptions;
  /** The state a reset returns to (the rows are the stored objects, which are never changed in place). */
  #baseline: SnapshotState | undefined;
  readonly #named = new Map<string, NamedSnapshot>();
  #namedBytes = 0;

  constructor(options: StateControlOptions) {
    this.#options = options;
  }

  /**
   * Keeps the state a reset returns to: the state now (the agent just configured, before any demo
   * or data), reduced to what a new agent has: the `default` namespace, the nodes, and what
   * `configured` names or its writes created. On a store of its own that is the whole state; on a
   * shared store that already held other agents' work, that work is left out.
   */
  keepBaseline(configured: ConfiguredState): void {
    const { tables, index } = this.#options.store;
    const namespaces = new Set(["default", ...configured.namespaces]);
    const policies = new Set(configured.policies);
    const secrets = new Set(configured.tokenSecrets);
    const keep: { readonly [Name in TableName]?: (row: Rows[Name]) => boolean } = {
      namespaces: (namespace) => namespaces.has(namespace.Name),
      nodes: () => true,
      acl_policy: (policy) => policies.has(policy.Name),
      acl_token: (token) => secrets.has(token.SecretID) || token.CreateIndex > configured.since,
    };
    const rows: Partial<Record<TableName, unknown[]>> = {};
    for (const name of TABLE_NAMES) {
      const filter = keep[name] as ((row: unknown) => boolean) | undefined;
      rows[name] = filter === undefined ? [] : [...tables[name].values()].filter(filter);
    }
    // The cast: every table of TABLE_NAMES is filled above (its own rows), which TypeScript does not follow.
    this.#baseline = { index, rows: rows as unknown as SnapshotState["rows"] };
  }

  /** Brings a shared store's copy up to the database, so that what is read or replaced is the latest state. */
  async #catchUp(): Promise<void> {
    await this.#options.shared?.catchUp();
  }

  /** The whole state now, as a snapshot document. */
  async snapshot(): Promise<AgentSnapshot> {
    await this.#catchUp();
    const { store, now } = this.#options;
    return takeSnapshot(store.tables, store.index, now());
  }

  /**
   * Puts a snapshot document back (see `snapshot.ts`), then has the scheduler take up the work of
   * the restored state. Returns the index of the restore's write.
   *
   * @throws AgentDataError for a document that is not a snapshot this agent can restore.
   */
  async restore(document: unknown): Promise<number> {
    await this.#catchUp();
    const state = await readSnapshot(document, this.#options.store.tables);
    return this.#put(state);
  }

  /** Empties the state back to a new agent's (see {@link StateControl.keepBaseline}); returns the index of the write. */
  async reset(): Promise<number> {
    if (this.#baseline === undefined) throw new Error("the agent has not finished starting: there is no state to reset to yet");
    await this.#catchUp();
    return this.#put(this.#baseline);
  }

  async #put(state: SnapshotState): Promise<number> {
    const index = await restoreSnapshot(this.#options.store, state);
    this.#options.cluster.resync();
    this.#options.onRestored?.();
    return index;
  }

  /**
   * Loads the data an agent starts from: restores a snapshot, or loads a fixture (the cluster must
   * lead: the scheduler's steps run on the way).
   *
   * @throws AgentDataError for a document that cannot be used, or a fixture whose jobs did not end as asked.
   */
  async load(data: AgentData): Promise<void> {
    if (data.kind === "snapshot") {
      await this.restore(data.document);
      return;
    }
    const { cluster, store, datacenter, now } = this.#options;
    await loadFixture(data.fixture, { cluster, store, datacenter, now });
  }

  /** The named snapshots, by name. */
  listNamed(): NamedSnapshotInfo[] {
    return [...this.#named.values()].map((named) => named.info).sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  }

  /**
   * Keeps a snapshot under `name` (replacing one of that name): the given document, checked, or
   * the state now.
   *
   * @throws a refusal (`invalid`) for a bad name, or when the snapshots would pass
   *   {@link MAX_NAMED_SNAPSHOTS} or {@link NAMED_SNAPSHOTS_BYTES}; AgentDataError for a document
   *   that is not a snapshot.
   */
  async keepNamed(name: string, document?: unknown): Promise<NamedSnapshotInfo> {
    checkName(name);
    let snapshot: unknown;
    if (document === undefined) snapshot = await this.snapshot();
    else {
      await readSnapshot(document, this.#options.store.tables);
      snapshot = document;
    }
    const { Index, Time } = snapshot as AgentSnapshot;
    const text = Buffer.from(stringifyJson(snapshot));
    const replaced = this.#named.get(name);
    if (replaced === undefined && this.#named.size >= MAX_NAMED_SNAPSHOTS) throw invalid(`the agent keeps at most ${MAX_NAMED_SNAPSHOTS} named snapshots: delete some first`);
    const bytes = this.#namedBytes - (replaced?.text.length ?? 0) + text.length;
    if (bytes > NAMED_SNAPSHOTS_BYTES) {
      throw invalid(`the named snapshots would hold ${bytes} bytes; the agent keeps at most ${NAMED_SNAPSHOTS_BYTES}: delete some first`);
    }
    const info: NamedSnapshotInfo = { Name: name, Index, Time, Bytes: text.length };
    this.#named.set(name, { text, info });
    this.#namedBytes = bytes;
    return info;
  }

  /**
   * The JSON text of a named snapshot.
   *
   * @throws a refusal: `invalid` for a bad name, `not_found` when there is none of that name.
   */
  namedText(name: string): Buffer {
    return this.#namedSnapshot(name).text;
  }

  /** Restores a named snapshot; returns the index of the write (refusals as {@link StateControl.namedText}). */
  async restoreNamed(name: string): Promise<number> {
    return this.restore(parseJson(this.#namedSnapshot(name).text.toString("utf8")));
  }

  /** Forgets a named snapshot (refusals as {@link StateControl.namedText}). */
  deleteNamed(name: string): void {
    const named = this.#namedSnapshot(name);
    this.#named.delete(name);
    this.#namedBytes -= named.text.length;
  }

  #namedSnapshot(name: string): NamedSnapshot {
    checkName(name);
    const named = this.#named.get(name);
    if (named === undefined) throw missing(`snapshot ${JSON.stringify(name)} not found`);
    return named;
  }
}

/** Refuses a name that is not a snapshot's. */
function checkName(name: string): void {
  if (name === "") throw invalid("Missing snapshot name");
  if (!SNAPSHOT_NAME.test(name)) {
    throw invalid(`invalid snapshot name ${JSON.stringify(name.length > 140 ? `${name.slice(0, 137)}…` : name)}: 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  }
}
