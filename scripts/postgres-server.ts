/**
 * A throw-away PostgreSQL cluster of Debian's binaries (the `postgresql` package, which `.ci/run`
 * installs), for `npm run bench`'s cluster section and the fault suite (test/faults/): its own
 * temporary directory (data, log, unix socket), trust authentication on loopback, fsync off (the
 * data is thrown away), and a port of its own that it keeps across stops and starts, so that a
 * test can take the server away and bring it back at the same address.
 *
 * The port is below the kernel's range of ephemeral ports: a client that keeps connecting to a
 * stopped server on an ephemeral port may be given that very port as its own source and connect
 * to itself (a TCP simultaneous open), which then holds the port when the server starts again.
 *
 * As root, the server runs as the `postgres` user (PostgreSQL refuses root).
 *
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

/** How long `pg_ctl` waits for the server to start or stop (a loaded machine), in seconds. */
export const POSTGRES_START_SECONDS = 60;

/**
 * The directory of initdb and pg_ctl: Debian's (/usr/lib/postgresql/<version>/bin, the newest
 * version that has both), else the one PATH gives (another system's packages); undefined without them.
 */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => b.localeCompare(a, "en", { numeric: true })) : [];
  const candidates = [...versions.map((version) => join(root, version, "bin")), ...(process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "")];
  for (const bin of candidates) {
    try {
      accessSync(join(bin, "initdb"), constants.X_OK);
      accessSync(join(bin, "pg_ctl"), constants.X_OK);
      // The real directory of pg_ctl: its siblings (postgres, createdb) are there, not beside a link on PATH.
      return dirname(realpathSync(join(bin, "pg_ctl")));
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/** The lowest ephemeral port of this machine (Linux's `ip_local_port_range`; 32768 elsewhere). */
function firstEphemeralPort(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) && port > 1024 ? port : 32768;
  } catch {
    return 32768;
  }
}

/** Whether `port` can be bound on loopback now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A free loopback port below the ephemeral range (see the module's description). */
async function freeFixedPort(): Promise<number> {
  const high = firstEphemeralPort() - 1;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (high - 10_000));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port between 10000 and ${high}`);
}

/** How a server stops: `pg_ctl stop -m <mode>`. */
export type ShutdownMode = "smart" | "fast" | "immediate";

/** The outcome of one `pg_ctl` (or other binary) run. */
export interface ProgramRun {
  readonly status: number | null;
  readonly output: string;
}

/** A throw-away PostgreSQL cluster, running until {@link ThrowawayPostgres.remove}. */
export class ThrowawayPostgres {
  #running = false;

  private constructor(
    /** The directory of its binaries. */
    readonly bin: string,
    /** Its temporary directory: `data/`, `server.log` and the unix socket. */
    readonly dir: string,
    readonly port: number,
    /** The server's settings (`-c name=value`). */
    readonly settings: Readonly<Record<string, string>>,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Whether the server was last started (and not stopped since). */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Makes a cluster in a new temporary directory and starts it on a free port below the ephemeral
   * range; `settings` are passed to the server (`max_connections`, say).
   *
   * @throws when the binaries are missing, or the cluster cannot be made or started (three ports tried).
   */
  static async start(settings: Readonly<Record<string, string>> = {}, bin = postgresBinDir()): Promise<ThrowawayPostgres> {
    if (bin === undefined) throw new Error("there is no /usr/lib/postgresql/*/bin/initdb and pg_ctl (Debian's postgresql package)");
    const root = process.getuid?.() === 0;
    if (root && spawnSync("id", ["-u", "postgres"]).status !== 0) throw new Error("running as root and there is no postgres user");
    const dir = mkdtempSync(join(tmpdir(), "bexpr-postgres-"));
    if (root) {
      const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
      chownSync(dir, id("-u"), id("-g"));
    }
    let server: ThrowawayPostgres | undefined;
    try {
      const initdb = await runAs(bin, dir, "initdb", ["-D", join(dir, "data"), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]);
      if (initdb.status !== 0) throw new Error(`initdb failed:\n${initdb.output}`);
      // Another process may take the port between the check and the server's start: then another.
      for (let attempt = 1; attempt <= 3; attempt++) {
        server = new ThrowawayPostgres(bin, dir, await freeFixedPort(), { fsync: "off", ...settings });
        const started = await server.start();
        if (started.status === 0) return server;
        if (attempt === 3) throw new Error(`PostgreSQL did not start:\n${server.logTail()}`);
      }
      throw new Error("unreachable");
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Runs one of the cluster's programs (pg_ctl, psql…) as its owner, from its directory, without blocking this process. */
  run(program: string, args: readonly string[]): Promise<ProgramRun> {
    return runAs(this.bin, this.dir, program, args);
  }

  /** Starts the server (again), waiting until it accepts connections. */
  async start(): Promise<ProgramRun> {
    const options = [`-c listen_addresses=127.0.0.1`, `-p ${this.port}`, `-c unix_socket_directories=${this.dir}`, ...Object.entries(this.settings).map(([name, value]) => `-c ${name}=${value}`)].join(" ");
    const run = await this.run("pg_ctl", ["-D", join(this.dir, "data"), "-l", join(this.dir, "server.log"), "-w", "-t", String(POSTGRES_START_SECONDS), "-o", options, "start"]);
    if (run.status === 0) this.#running = true;
    return run;
  }

  /**
   * Stops the server in `mode`; `waitSeconds` bounds how long pg_ctl waits for it (a smart
   * shutdown waits for every client to leave).
   */
  async stop(mode: ShutdownMode, waitSeconds = POSTGRES_START_SECONDS): Promise<ProgramRun> {
    const run = await this.run("pg_ctl", ["-D", join(this.dir, "data"), "-m", mode, "-w", "-t", String(waitSeconds), "stop"]);
    if (run.status === 0) this.#running = false;
    return run;
  }

  /** The last lines of the server's log. */
  logTail(lines = 8): string {
    const log = join(this.dir, "server.log");
    return existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-lines).join("\n") : "(no log)";
  }

  /**
   * Stops the server at once and removes its directory; synchronous, so that it can run as the
   * process exits.
   */
  remove(): void {
    spawnSync(...command(this.bin, "pg_ctl", ["-D", join(this.dir, "data"), "-m", "immediate", "-w", "stop"]), { cwd: this.dir, stdio: "ignore" });
    this.#running = false;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The command line of `program` of `bin`, as the `postgres` user when this process is root. */
function command(bin: string, program: string, args: readonly string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] : [join(bin, program), [...args]];
}

/** Runs `program` of `bin` from `dir` (see {@link command}). */
function runAs(bin: string, dir: string, program: string, args: readonly string[]): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const child = spawn(...command(bin, program, args), { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", (error) => resolve({ status: null, output: `${output}${error.message}` }));
    child.on("close", (status) => resolve({ status, output }));
  });
}
