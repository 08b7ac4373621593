/**
 * The agents sharing one PostgreSQL schema, as the servers of one region: each heartbeats its row
 * of `members`, and one holds the leader's lease (a row with an expiry, renewed with every
 * heartbeat) and runs the simulated scheduler.
 *
 * - An agent whose heartbeats stop for {@link MEMBER_FAILED_AFTER_MS} is `failed`; one that shut
 *   down cleanly is `left` (it also gives up its lease, so another leads at its next heartbeat).
 * - A lease not renewed for {@link LEADER_LEASE_MS} is free: when the leader's process dies, another
 *   agent takes it at its next heartbeat after that, and takes up the work in flight.
 * - A leader stops leading {@link HEARTBEAT_MS} before its lease could pass to another, unless a
 *   heartbeat renewed it meanwhile (a timer, so a heartbeat that hangs or fails stops it all the
 *   same): two agents never run the scheduler at once.
 * - Times are the database's (`now()`), so the agents' clocks need not agree.
 *
 * A lease rather than an advisory lock: it works the same on PGlite (one session shared by every
 * agent of a process, where a session's advisory locks are all the same holder's), and its expiry
 * is the same timer that tells members failed.
 *
 * @module
 */
import { DatabaseUnavailableError } from "./database.js";
import type { PostgresStore } from "./store.js";

/** How often each agent heartbeats, renews or seeks the lease, and reads the database's index. */
export const HEARTBEAT_MS = 1000;

/** How long the leader's lease lasts without renewal. */
export const LEADER_LEASE_MS = 5000;

/** How long without a heartbeat before a member is `failed`. */
export const MEMBER_FAILED_AFTER_MS = 5000;

/** One agent of the cluster, as the members table holds it. */
export interface MemberRecord {
  /** `<node name>.<region>`, unique among the agents alive. */
  readonly name: string;
  readonly address: string;
  /** The agent's HTTP port. */
  readonly port: number;
  readonly datacenter: string;
  readonly nodeId: string;
  readonly version: string;
  /** `alive`, `failed` (no heartbeat for {@link MEMBER_FAILED_AFTER_MS}) or `left`. */
  readonly status: "alive" | "failed" | "left";
}

/** The error of an agent whose name another live agent holds. */
export class MemberNameTaken extends Error {
  override readonly name = "MemberNameTaken";
}

/** This agent's part in the cluster: its heartbeat, its member row, and the leader's lease. */
export class Membership {
  #timer: NodeJS.Timeout | undefined;
  #leading = false;
  /** The leader seen by the last heartbeat (its member name), if its lease was current. */
  #leader: string | undefined;
  /** When a heartbeat last reached the database (epoch milliseconds). */
  #contactAt = Date.now();
  #beating: Promise<void> | undefined;
  /** Stops the leading when the lease may have passed to another (set at each renewal). */
  #guard: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Whether this agent holds its name's member row (another agent's must not be marked left). */
  #claimed = false;
  #self: Omit<MemberRecord, "status">;
  /** The members as last read from the database. */
  #members: MemberRecord[] | undefined;

  constructor(
    private readonly store: PostgresStore,
    self: Omit<MemberRecord, "status">,
    /** Told when this agent starts or stops leading. */
    private readonly onLeadership: (leading: boolean) => void,
  ) {
    this.#self = self;
  }

  /**
   * Claims this agent's name before it serves anything: writes its member row, unless a live agent
   * holds the name. A row whose heartbeat moves while it waits is a live agent's, refused at once;
   * a row that stands still may be this agent's own from before a restart, and is taken once it has
   * failed ({@link MEMBER_FAILED_AFTER_MS}).
   *
   * @throws MemberNameTaken when a live agent holds this agent's name.
   */
  async claim(): Promise<void> {
    const deadline = Date.now() + MEMBER_FAILED_AFTER_MS + HEARTBEAT_MS;
    let firstSeen: string | undefined;
    while (!(await this.#claimName())) {
      const heartbeat = await this.#heartbeatOf();
      firstSeen ??= heartbeat;
      if (heartbeat !== firstSeen || Date.now() > deadline) {
        throw new MemberNameTaken(`another agent named ${JSON.stringify(this.#self.name)} is alive on this database: give each agent its own node name (--node-name)`);
      }
      await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS / 4));
    }
    this.#claimed = true;
  }

  /**
   * Joins, once the agent listens at `port`: the member row gets its port, then a heartbeat every
   * {@link HEARTBEAT_MS}. The name must have been claimed ({@link Membership.claim}).
   */
  async join(port: number): Promise<void> {
    this.#self = { ...this.#self, port };
    await this.store.database.query(`UPDATE ${this.store.sqlSchema}.members SET port = $1::int WHERE name = $2 AND node_id = $3`, [String(port), this.#self.name, this.#self.nodeId]);
    await this.heartbeat();
    const beat = () => {
      this.#timer = setTimeout(() => {
        void this.heartbeat().finally(() => {
          if (!this.#stopped) beat();
        });
      }, HEARTBEAT_MS);
    };
    beat();
  }

  /** This agent's member record (its port is the one it listens on once it has joined). */
  get self(): Omit<MemberRecord, "status"> {
    return this.#self;
  }

  /** The heartbeat of the member row of this agent's name, as the database writes it. */
  async #heartbeatOf(): Promise<string | undefined> {
    const rows = await this.store.database.query(`SELECT heartbeat::text AS heartbeat FROM ${this.store.sqlSchema}.members WHERE name = $1`, [this.#self.name]);
    return rows[0]?.heartbeat ?? undefined;
  }

  /** Writes this agent's member row, unless a live agent holds its name. */
  async #claimName(): Promise<boolean> {
    const s = this.store.sqlSchema;
    const { name, address, port, datacenter, nodeId, version } = this.self;
    const rows = await this.store.database.query(
      `INSERT INTO ${s}.members (name, address, port, datacenter, node_id, version, status, heartbeat)
       VALUES ($1, $2, $3::int, $4, $5, $6, 'alive', now())
       ON CONFLICT (name) DO UPDATE SET address = excluded.address, port = excluded.port, datacenter = excluded.datacenter,
         node_id = excluded.node_id, version = excluded.version, status = 'alive', heartbeat = now()
       WHERE members.status <> 'alive' OR members.heartbeat < now() - $7::interval OR members.node_id = excluded.node_id
       RETURNING name`,
      [name, address, String(port), datacenter, nodeId, version, `${MEMBER_FAILED_AFTER_MS} milliseconds`],
    );
    return rows.length === 1;
  }

  /** True while this agent holds the lease. */
  get leading(): boolean {
    return this.#leading;
  }

  /** Whether a leader was known at the last heartbeat, and that heartbeat is recent. */
  get knownLeader(): boolean {
    return this.#leader !== undefined && Date.now() - this.#contactAt < LEADER_LEASE_MS;
  }

  /** The leader's member name, when one is known. */
  get leader(): string | undefined {
    return this.knownLeader ? this.#leader : undefined;
  }

  /** Milliseconds since this agent last reached the database (0 on the leader that just did). */
  get lastContactMs(): number {
    return this.#leading ? 0 : Date.now() - this.#contactAt;
  }

  /** One heartbeat: the member row, the lease (renewed or taken when free), the leader's name, and a catch-up when the copy is behind. */
  heartbeat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  async #beat(): Promise<void> {
    const s = this.store.sqlSchema;
    const lease = `${LEADER_LEASE_MS} milliseconds`;
    // Counted from before the lease is renewed: the database's expiry is later than this.
    const startedAt = Date.now();
    try {
      const rows = await this.store.database.transaction(async (session) => {
        // A heartbeat stuck behind a lock must not outlive the lease it renews.
        await session.query(`SET LOCAL statement_timeout = ${HEARTBEAT_MS * 2}`);
        await session.query(`UPDATE ${s}.members SET heartbeat = now(), status = 'alive' WHERE name = $1 AND node_id = $2`, [this.#self.name, this.#self.nodeId]);
        // The lease: renewed by its holder, taken by anyone once it has expired.
        await session.query(
          `INSERT INTO ${s}.leader (id, holder, expires) VALUES (1, $1, now() + $2::interval)
           ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
           WHERE leader.holder = excluded.holder OR leader.expires < now()`,
          [this.#self.name, lease],
        );
        return session.query(
          `SELECT holder, (expires > now())::text AS current, (SELECT index::text FROM ${s}.state) AS index FROM ${s}.leader`,
        );
      });
      if (this.#stopped) return;
      const row = rows[0];
      this.#contactAt = Date.now();
      this.#leader = row !== undefined && row.current === "true" ? (row.holder ?? undefined) : undefined;
      if (row !== undefined && Number(row.index) > this.store.index) await this.store.sync();
      if (this.#leader === this.#self.name) {
        this.#setLeading(true);
        // Lead no longer than the lease is surely ours, whether or not the next heartbeat returns.
        clearTimeout(this.#guard);
        this.#guard = setTimeout(() => this.#setLeading(false), Math.max(0, startedAt + LEADER_LEASE_MS - HEARTBEAT_MS - Date.now()));
      } else this.#setLeading(false);
    } catch {
      // The database is away: the guard set at the last renewal stops the leading in time.
    }
  }

  #setLeading(leading: boolean): void {
    if (!leading) clearTimeout(this.#guard);
    if (leading === this.#leading) return;
    this.#leading = leading;
    this.onLeadership(leading);
  }

  /**
   * Every member, with its status as of now. While the database is away, the members as last read,
   * as the reference's agent answers from its own gossip: this agent alive, and the others `failed`
   * once it has heard nothing from the database for {@link MEMBER_FAILED_AFTER_MS} (their
   * heartbeats are out of its sight).
   */
  async members(): Promise<MemberRecord[]> {
    if (!this.store.database.listening && this.#members !== undefined) return this.#lastKnownMembers();
    let rows;
    try {
      rows = await this.store.database.query(
        `SELECT name, address, port::text AS port, datacenter, node_id, version,
           CASE WHEN status = 'alive' AND heartbeat < now() - $1::interval THEN 'failed' ELSE status END AS status
         FROM ${this.store.sqlSchema}.members ORDER BY name COLLATE "C"`,
        [`${MEMBER_FAILED_AFTER_MS} milliseconds`],
      );
    } catch (error) {
      if (error instanceof DatabaseUnavailableError && this.#members !== undefined) return this.#lastKnownMembers();
      throw error;
    }
    this.#members = rows.map((row) => ({
      name: row.name!,
      address: row.address!,
      port: Number(row.port),
      datacenter: row.datacenter!,
      nodeId: row.node_id!,
      version: row.version!,
      status: row.status as MemberRecord["status"],
    }));
    return this.#members;
  }

  /** The members as last read, while the database is away (see {@link Membership.members}). */
  #lastKnownMembers(): MemberRecord[] {
    const unseen = Date.now() - this.#contactAt >= MEMBER_FAILED_AFTER_MS;
    return this.#members!.map((member) =>
      member.name === this.#self.name ? { ...member, status: "alive" } : unseen && member.status === "alive" ? { ...member, status: "failed" } : member,
    );
  }

  /** Stops heartbeating; a clean shutdown (`leave`) marks the member `left` and gives up the lease. */
  async stop(leave: boolean): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#beating?.catch(() => {});
    this.#setLeading(false);
    if (!leave || !this.#claimed) return;
    const s = this.store.sqlSchema;
    await this.store.database
      .transaction(async (session) => {
        await session.query(`UPDATE ${s}.members SET status = 'left', heartbeat = now() WHERE name = $1 AND node_id = $2`, [this.#self.name, this.#self.nodeId]);
        await session.query(`UPDATE ${s}.leader SET expires = now() - interval '1 millisecond' WHERE holder = $1`, [this.#self.name]);
      })
      .catch(() => {});
  }
}
