/**
 * The simulated allocation directory (`client/allocdir/`): what the reference's client agent
 * lays out for an allocation it runs, and what its tasks write there, as a pure function of the
 * allocation, the job version it runs and the time on the agent's clock. Nothing is kept: the
 * same state and time give the same files on every agent sharing the store.
 *
 * The layout is the reference's (`alloc_dir.go`, `task_dir.go`):
 *
 * ```
 * alloc/             the group's shared directory
 * alloc/data/
 * alloc/logs/        <task>.stdout.0 and <task>.stderr.0 for each task
 * alloc/tmp/
 * <task>/local/      with the files the task's Meta writes (bexpr.file.local/…)
 * <task>/secrets/
 * <task>/tmp/
 * ```
 *
 * What a task writes is scripted by its `Meta` (see {@link META_STDOUT}, {@link META_FILE_PREFIX});
 * a stream it does not script gets the simulated client's lifecycle lines ({@link defaultLines}).
 * Every task of a group shares the allocation's life (`TaskRun`): its lines are written from
 * when it starts, and none after it ends.
 *
 * @module
 */
import { parseGoDuration } from "../../go/duration.js";
import type { Allocation, Job } from "../state/model.js";

/** Where the simulated client keeps its allocations' directories (the reference's `<data_dir>/alloc`), shown in its error texts. */
export const SIMULATED_ALLOC_ROOT = "/opt/nomad/data/alloc";

/**
 * The most bytes one log of a task keeps (each of stdout and stderr). The reference's logmon
 * rotates files of `max_file_size` (10 MB by default) and keeps `max_files`; the simulation keeps
 * one file per stream, `<task>.stdout.0`, and what a script writes past this is dropped: a
 * request reads at most this much of a log, however long the task runs.
 */
export const MAX_TASK_LOG_BYTES = 1024 * 1024;

/**
 * The most lines one log of a task keeps: a script's lines past it are dropped, as past
 * {@link MAX_TASK_LOG_BYTES}. It bounds the work of parsing a script (once per job version), which
 * a script of a million empty lines made take seconds.
 */
export const MAX_TASK_LOG_LINES = 65_536;

/** The task `Meta` key whose value scripts the task's stdout: one line of text per line, `@<duration> ` before a line writes it that long after the task starts. */
export const META_STDOUT = "bexpr.stdout";

/** The task `Meta` key that scripts its stderr, as {@link META_STDOUT}. */
export const META_STDERR = "bexpr.stderr";

/** The prefix of task `Meta` keys that write a file when the task starts: `bexpr.file.local/app.conf` is `<task>/local/app.conf`. */
export const META_FILE_PREFIX = "bexpr.file.";

/** The task directories a scripted file may be written under (the reference's `local`, `secrets`, `tmp`). */
const TASK_DIRS = ["local", "secrets", "tmp"] as const;

/** The group's shared directories under `alloc/` (`SharedAllocDirs`). */
const SHARED_DIRS = ["data", "logs", "tmp"] as const;

/** Go's `FileMode.String()` of the directories (`fileMode777`, the alloc dir's `fileMode755`) and of the files written. */
const DIR_MODE = "drwxrwxrwx";
const ALLOC_DIR_MODE = "drwxr-xr-x";
const FILE_MODE = "-rw-r--r--";

/** The size a directory reports (one ext4 block), as `os.Stat` gives it on the reference's Linux clients. */
export const DIR_SIZE = 4096;

/** One line a task writes: when (milliseconds after the task started) and the bytes. */
interface LogLine {
  readonly atMs: number;
  readonly text: string;
}

/**
 * A log's lines, ready to cut at any time: the bytes of every line a log keeps (at most
 * {@link MAX_TASK_LOG_BYTES}), and for each line its time and where its bytes end. Reading the log
 * at a time is a binary search and a view of the bytes, so that a followed log, read again at each
 * line, costs no more than the lines it sends.
 */
export interface LogScript {
  /** Each kept line's time after the task's start, in milliseconds, never decreasing. */
  readonly atMs: Float64Array;
  /** Where each kept line's bytes end. */
  readonly ends: Int32Array;
  readonly bytes: Buffer;
}

/** The client's own lines (one or two, short) as a {@link LogScript}. */
function scriptOfLines(lines: readonly LogLine[]): LogScript {
  const ends: number[] = [];
  let size = 0;
  for (const line of lines) ends.push((size += Buffer.byteLength(line.text)));
  return { atMs: Float64Array.from(lines.map((line) => line.atMs)), ends: Int32Array.from(ends), bytes: Buffer.from(lines.map((line) => line.text).join("")) };
}

/** A file or directory of the simulated allocation directory. */
export interface AllocEntry {
  readonly name: string;
  readonly isDir: boolean;
  /** A file's bytes (empty for a directory). */
  readonly content: Buffer;
  /** Milliseconds since the epoch. */
  readonly modMs: number;
  readonly mode: string;
}

/** `cstructs.AllocFileInfo`, as the reference's client answers `ls` and `stat`. */
export interface AllocFileInfo {
  readonly Name: string;
  readonly IsDir: boolean;
  readonly Size: number;
  readonly FileMode: string;
  /** Go's JSON of a `time.Time`. */
  readonly ModTime: string;
  readonly ContentType?: string;
}

/** Why a path cannot be read: the reference's texts; the HTTP layer picks the status from the kind. */
export class AllocPathError extends Error {
  override readonly name = "AllocPathError";

  constructor(
    readonly kind: "escapes" | "missing" | "not_dir" | "is_dir" | "secret",
    message: string,
  ) {
    super(message);
  }
}

/** A path relative to the allocation directory, cleaned as Go's `filepath.Join` does: its segments, and the path the reference's errors show. */
export interface AllocPath {
  readonly segments: readonly string[];
  /** The absolute path on the simulated client (`/opt/nomad/data/alloc/<id>/alloc/logs`). */
  readonly hostPath: string;
}

/**
 * Resolves `path` against the allocation's directory as the reference's `PathEscapesAllocDir`
 * and `filepath.Join` do: `..` may not leave the directory (`Path escapes the alloc directory`),
 * though `../<id>/x` comes back into it.
 */
export function resolveAllocPath(allocId: string, path: string): AllocPath {
  const root = [...SIMULATED_ALLOC_ROOT.split("/").filter((part) => part !== ""), allocId];
  const joined = [...root];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") joined.pop();
    else joined.push(part);
  }
  const inside = joined.length >= root.length && root.every((part, index) => joined[index] === part);
  if (!inside) throw new AllocPathError("escapes", "Path escapes the alloc directory");
  return { segments: joined.slice(root.length), hostPath: `/${joined.join("/")}` };
}

/** A task's scripted lines, parsed once for each task object (a job's rows are never changed in place). */
const SCRIPTS = new WeakMap<object, ReadonlyMap<string, LogScript | null>>();

/**
 * Parses a script: each line is written with a newline; `@<duration> ` before a line gives its
 * time after the task's start, else it follows the line before (the first at the start). A line
 * whose time does not parse is written as it is, at the time of the line before.
 */
export function parseLogScript(script: string): LogScript {
  // One string built and encoded once (a Buffer.write for each line cost 1.5 s for a million lines);
  // a line's bytes are its length when the script is ASCII, as most are.
  const ascii = !/[^\x00-\x7f]/.test(script);
  const atMsOf: number[] = [];
  const ends: number[] = [];
  let text = "";
  let size = 0;
  let atMs = 0;
  // Line by line without splitting the whole value: the lines past the cap are never looked at.
  for (let from = 0; from < script.length && size < MAX_TASK_LOG_BYTES && ends.length < MAX_TASK_LOG_LINES; ) {
    const newline = script.indexOf("\n", from);
    const end = newline < 0 ? script.length : newline;
    let line = script.slice(from, end);
    from = end + 1;
    if (line.startsWith("@")) {
      const timed = /^@(\S+) ?(.*)$/s.exec(line);
      const ms = timed === null ? undefined : parseGoDuration(timed[1]!);
      if (ms !== undefined && ms >= 0) {
        atMs = Math.max(atMs, ms);
        line = timed![2]!;
      }
    }
    text += `${line}\n`;
    size = Math.min(size + (ascii ? line.length + 1 : Buffer.byteLength(line) + 1), MAX_TASK_LOG_BYTES);
    atMsOf.push(atMs);
    ends.push(size);
  }
  // A line cut at the cap may end inside a character: a log is bytes, as the reference's.
  return { atMs: Float64Array.from(atMsOf), ends: Int32Array.from(ends), bytes: Buffer.from(text).subarray(0, size) };
}

/** What of a task's spec scripts its output: its `Meta`, and its driver's `Config`. */
interface TaskSpec {
  readonly Name?: string;
  readonly Meta?: Readonly<Record<string, string>> | null;
  readonly Config?: Readonly<Record<string, unknown>> | null;
}

/** A task's spec, from the job version the allocation runs (an empty one when the job is gone). */
function taskSpec(job: Job | null, alloc: Allocation, task: string): TaskSpec {
  const group = job?.TaskGroups.find((candidate) => candidate.Name === alloc.TaskGroup);
  return ((group?.Tasks ?? []) as readonly TaskSpec[]).find((candidate) => candidate.Name === task) ?? {};
}

/** The task's `Meta`. */
function taskMeta(job: Job | null, alloc: Allocation, task: string): Readonly<Record<string, string>> {
  return taskSpec(job, alloc, task).Meta ?? {};
}

/**
 * The output the reference's mock driver writes when the task starts (`stdout_string`,
 * `stderr_string` of its `Config`), as one write of the text as it is: the reference's own
 * `TestFS_Logs` reads 80K lines written so. Its `*_repeat` settings are not simulated.
 */
function driverOutput(config: Readonly<Record<string, unknown>> | null | undefined, type: "stdout" | "stderr"): LogScript | undefined {
  const text = config?.[`${type}_string`];
  if (typeof text !== "string") return undefined;
  // A view of at most the cap: the bytes are copied once the script is cached.
  const bytes = Buffer.from(text.length > MAX_TASK_LOG_BYTES ? text.slice(0, MAX_TASK_LOG_BYTES) : text).subarray(0, MAX_TASK_LOG_BYTES);
  return { atMs: Float64Array.of(0), ends: Int32Array.of(bytes.length), bytes: Buffer.from(bytes) };
}

/**
 * The lines of one stream of a task, parsed once per task object: its `Meta` script's, else its
 * mock driver's output, else undefined (the client's own lines).
 */
function scriptOf(spec: TaskSpec, type: "stdout" | "stderr"): LogScript | undefined {
  let parsed = SCRIPTS.get(spec) as Map<string, LogScript | null> | undefined;
  if (parsed === undefined) SCRIPTS.set(spec, (parsed = new Map()));
  let script = parsed.get(type);
  if (script === undefined) {
    const text = spec.Meta?.[type === "stdout" ? META_STDOUT : META_STDERR];
    script = (text === undefined ? driverOutput(spec.Config, type) : parseLogScript(text)) ?? null;
    parsed.set(type, script);
  }
  return script ?? undefined;
}

/**
 * The simulated client's lines on a stream the task does not script: on stdout, one when the task
 * starts and one when it ends; on stderr, one when it ends with a non-zero exit code.
 */
export function defaultLines(task: string, type: "stdout" | "stderr", run: NonNullable<Allocation["TaskRun"]>): LogScript {
  return scriptOfLines(clientLines(task, type, run));
}

/** The lines of {@link defaultLines}. */
function clientLines(task: string, type: "stdout" | "stderr", run: NonNullable<Allocation["TaskRun"]>): LogLine[] {
  if (run.StartedAt === null) return [];
  const lines: LogLine[] = [];
  const endMs = run.FinishedAt === null ? undefined : Math.max(0, run.FinishedAt - run.StartedAt);
  const code = run.ExitCode;
  if (type === "stdout") {
    lines.push({ atMs: 0, text: `[bexpr] task "${task}" started\n` });
    if (endMs !== undefined && (code ?? 0) === 0) lines.push({ atMs: endMs, text: code === null ? `[bexpr] task "${task}" killed\n` : `[bexpr] task "${task}" exited with code 0\n` });
  } else if (endMs !== undefined && code !== null && code !== 0) {
    lines.push({ atMs: endMs, text: `[bexpr] task "${task}" exited with code ${code}\n` });
  }
  return lines;
}

/** Whether the allocation's tasks write no more: they ended, or its client is away or done with it. */
export function tasksEnded(alloc: Allocation): boolean {
  return alloc.TaskRun?.FinishedAt != null || alloc.ClientStatus === "complete" || alloc.ClientStatus === "failed" || alloc.ClientStatus === "lost";
}

/** The names of the allocation's tasks (the group's, as its client received them). */
export function taskNames(alloc: Allocation): readonly string[] {
  return alloc.TaskRun?.Tasks ?? [];
}

/**
 * One task's log at `nowMs`: the lines written from its start to now (and not past its end), and
 * when it next grows (undefined when it will not, as far as the script tells). At most
 * {@link MAX_TASK_LOG_BYTES}.
 */
export function taskLog(alloc: Allocation, job: Job | null, task: string, type: "stdout" | "stderr", nowMs: number): { readonly content: Buffer; readonly modMs: number; readonly nextMs: number | undefined } {
  const run = alloc.TaskRun;
  const createdMs = Number(alloc.CreateTime / 1_000_000n);
  if (run === undefined || run.StartedAt === null) return { content: Buffer.alloc(0), modMs: createdMs, nextMs: undefined };
  const script = scriptOf(taskSpec(job, alloc, task), type) ?? defaultLines(task, type, run);
  const untilMs = Math.min(nowMs, run.FinishedAt ?? Number.POSITIVE_INFINITY) - run.StartedAt;
  // How many lines are written by now: the first whose time is past, found by halving.
  let low = 0;
  let high = script.atMs.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (script.atMs[middle]! <= untilMs) low = middle + 1;
    else high = middle;
  }
  const written = low;
  const content = script.bytes.subarray(0, written === 0 ? 0 : script.ends[written - 1]!);
  const modMs = written === 0 ? run.StartedAt : run.StartedAt + script.atMs[written - 1]!;
  // The next line, unless it comes after the task's end (never written).
  const nextAt = written < script.atMs.length ? run.StartedAt + script.atMs[written]! : undefined;
  const nextMs = nextAt !== undefined && (run.FinishedAt === null || nextAt <= run.FinishedAt) ? nextAt : undefined;
  return { content, modMs, nextMs };
}

/** The files a task's `Meta` writes under its directories: relative paths (`local/app.conf`) and contents. Keys naming another place write nothing. */
function scriptedFiles(meta: Readonly<Record<string, string>>): [string[], string][] {
  const files: [string[], string][] = [];
  for (const [key, value] of Object.entries(meta)) {
    if (!key.startsWith(META_FILE_PREFIX)) continue;
    const segments = key.slice(META_FILE_PREFIX.length).split("/");
    if (segments.length < 2 || !(TASK_DIRS as readonly string[]).includes(segments[0]!) || segments.some((part) => part === "" || part === "." || part === "..")) continue;
    files.push([segments, value]);
  }
  return files;
}

/**
 * The allocation's directory at `nowMs`, each entry by its path relative to the directory (`""`
 * is the directory itself). Built from the allocation's record and its job's task `Meta`: a few
 * entries per task, and the scripted files.
 */
export function allocDirAt(alloc: Allocation, job: Job | null, nowMs: number): ReadonlyMap<string, AllocEntry> {
  const createdMs = Number(alloc.CreateTime / 1_000_000n);
  const entries = new Map<string, AllocEntry>();
  const dir = (path: string, mode = DIR_MODE) => entries.set(path, { name: path.slice(path.lastIndexOf("/") + 1), isDir: true, content: Buffer.alloc(0), modMs: createdMs, mode });
  const file = (path: string, content: Buffer, modMs: number) => entries.set(path, { name: path.slice(path.lastIndexOf("/") + 1), isDir: false, content, modMs, mode: FILE_MODE });
  dir("", ALLOC_DIR_MODE);
  dir("alloc", ALLOC_DIR_MODE);
  for (const shared of SHARED_DIRS) dir(`alloc/${shared}`);
  const startedMs = alloc.TaskRun?.StartedAt ?? null;
  for (const task of taskNames(alloc)) {
    dir(task);
    for (const taskDir of TASK_DIRS) dir(`${task}/${taskDir}`);
    for (const type of ["stdout", "stderr"] as const) {
      const log = taskLog(alloc, job, task, type, nowMs);
      file(`alloc/logs/${task}.${type}.0`, log.content, log.modMs);
    }
    // Its files are written when it starts (the reference's artifact and template hooks run before).
    if (startedMs === null) continue;
    for (const [segments, content] of scriptedFiles(taskMeta(job, alloc, task))) {
      for (let depth = 2; depth < segments.length; depth += 1) {
        const parent = `${task}/${segments.slice(0, depth).join("/")}`;
        if (!entries.has(parent)) dir(parent);
      }
      file(`${task}/${segments.join("/")}`, Buffer.from(content), startedMs);
    }
  }
  return entries;
}

/** When the allocation's directory next changes after `nowMs` (a scripted line falls due), or undefined. */
export function nextChangeMs(alloc: Allocation, job: Job | null, nowMs: number): number | undefined {
  let next: number | undefined;
  for (const task of taskNames(alloc)) {
    for (const type of ["stdout", "stderr"] as const) {
      const due = taskLog(alloc, job, task, type, nowMs).nextMs;
      if (due !== undefined && (next === undefined || due < next)) next = due;
    }
  }
  return next;
}

/** The entry at `path`, or the reference's error (`stat <path>: no such file or directory`). */
export function statEntry(entries: ReadonlyMap<string, AllocEntry>, path: AllocPath): AllocEntry {
  const entry = entries.get(path.segments.join("/"));
  if (entry === undefined) throw new AllocPathError("missing", `stat ${path.hostPath}: no such file or directory`);
  return entry;
}

/** The entries of the directory at `path`, by name (as Go's `os.ReadDir`), or the reference's error. */
export function listEntries(entries: ReadonlyMap<string, AllocEntry>, path: AllocPath): AllocEntry[] {
  const key = path.segments.join("/");
  const entry = entries.get(key);
  if (entry === undefined) throw new AllocPathError("missing", `open ${path.hostPath}: no such file or directory`);
  if (!entry.isDir) throw new AllocPathError("not_dir", `readdirent ${path.hostPath}: not a directory`);
  const prefix = key === "" ? "" : `${key}/`;
  const children: AllocEntry[] = [];
  for (const [childPath, child] of entries) {
    if (childPath !== key && childPath.startsWith(prefix) && !childPath.slice(prefix.length).includes("/")) children.push(child);
  }
  return children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The bytes of the file at `path` for a read (`AllocDir.ReadAt`): a directory is refused (`file
 * "<path>" is a directory`), and so is a file under a task's `secrets` (`Reading secret file prohibited`).
 */
export function readableFile(entries: ReadonlyMap<string, AllocEntry>, path: AllocPath, asked: string): AllocEntry {
  const entry = statEntry(entries, path);
  if (entry.isDir) throw new AllocPathError("is_dir", `file ${JSON.stringify(asked)} is a directory`);
  if (path.segments.length >= 2 && path.segments[1]!.toLowerCase() === "secrets") throw new AllocPathError("secret", `Reading secret file prohibited: ${asked}`);
  return entry;
}

/**
 * Go's `http.DetectContentType` as far as the simulated files need it: a name ending in `.json` is
 * `application/json` (the reference's special case), text is `text/plain; charset=utf-8`,
 * anything with control bytes `application/octet-stream`, as an empty file and a directory.
 */
export function contentTypeOf(entry: AllocEntry): string {
  // The reference's special case, whatever the bytes (or none).
  if (entry.name.endsWith(".json")) return "application/json";
  if (entry.isDir || entry.content.length === 0) return "application/octet-stream";
  const head = entry.content.subarray(0, 512);
  const binary = head.some((byte) => byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b);
  return binary ? "application/octet-stream" : "text/plain; charset=utf-8";
}
