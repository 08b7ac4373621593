/**
 * Versions and version constraints as the reference reads them for its `version` and `semver`
 * constraint operators: HashiCorp's `go-version` (`NewVersion`, `Compare`, `NewConstraint` with
 * its operators `=`, `!=`, `>`, `<`, `>=`, `<=`, `~>` and its pre-release rule) and the reference's
 * own `helper/constraints/semver` (the same comparison, strict semver constraints, no `~>`, and
 * pre-releases ordered as semver orders them).
 *
 * Written here rather than taken from npm's `semver`: that package reads only three-segment
 * versions (`1.4` and `1.2.3.4` are not versions to it, they are to `go-version`), has no `~>`, and
 * admits pre-releases into ranges by a different rule, so each difference would have been a
 * translation to keep in step. The parsing is by hand, in one pass, so a long attribute costs time
 * in proportion to its length.
 *
 * @module
 */

/** A parsed version (`version.Version`): its numeric segments (at least three), pre-release and metadata. */
export interface GoVersion {
  /** The segments, padded with zeros to three. */
  readonly segments: readonly bigint[];
  /** How many segments the text had (`si`), which the pessimistic operator reads. */
  readonly written: number;
  readonly prerelease: string;
  readonly metadata: string;
}

/** Which grammar a version is read with: `go-version`'s loose one, or its strict semver one (`NewSemver`). */
export type VersionGrammar = "version" | "semver";

/** The largest int64, the bound of a segment (`strconv.ParseInt(s, 10, 64)`). */
const INT64_MAX = 2n ** 63n - 1n;

/** Whether `text` is a dot-separated list of non-empty identifiers of `[0-9A-Za-z-~]`. */
function isIdentifiers(text: string): boolean {
  return text !== "" && text.split(".").every((part) => /^[0-9A-Za-z~-]+$/.test(part));
}

/**
 * Parses a version (`NewVersion`, or `NewSemver` for the strict grammar), or undefined when it is
 * not one. The loose grammar takes any number of segments and a pre-release with or without its
 * dash (`1.2.3beta`); the strict one takes one to three segments and a dash before a pre-release.
 */
export function parseVersion(text: string, grammar: VersionGrammar = "version"): GoVersion | undefined {
  const core = /^v?([0-9]+(?:\.[0-9]+)*)/.exec(text);
  if (core === null) return undefined;
  const written = core[1]!.split(".");
  if (grammar === "semver" && written.length > 3) return undefined;
  let rest = text.slice(core[0].length);
  let metadata = "";
  const plus = rest.indexOf("+");
  if (plus !== -1) {
    metadata = rest.slice(plus + 1);
    if (!isIdentifiers(metadata)) return undefined;
    rest = rest.slice(0, plus);
  }
  let prerelease = "";
  if (rest !== "") {
    if (rest.startsWith("-") && isIdentifiers(rest.slice(1))) prerelease = rest.slice(1);
    // The loose grammar's second form: a pre-release led by a letter, `-` or `~`, its dash optional.
    else if (grammar === "version" && /^[A-Za-z~-]/.test(rest) && isIdentifiers(rest)) prerelease = rest;
    else return undefined;
  }
  const segments: bigint[] = [];
  for (const segment of written) {
    const value = BigInt(segment);
    if (value > INT64_MAX) return undefined;
    segments.push(value);
  }
  while (segments.length < 3) segments.push(0n);
  return { segments, written: written.length, prerelease, metadata };
}

/** One part of a pre-release against another (`comparePart`): numbers below words, words by their bytes. */
function comparePart(self: string, other: string): number {
  if (self === other) return 0;
  const selfNumeric = /^[+-]?[0-9]+$/.test(self);
  const otherNumeric = /^[+-]?[0-9]+$/.test(other);
  // A missing part is decided by the other one.
  if (self === "") return otherNumeric ? -1 : 1;
  if (other === "") return selfNumeric ? 1 : -1;
  if (selfNumeric && !otherNumeric) return -1;
  if (!selfNumeric && otherNumeric) return 1;
  if (!selfNumeric && !otherNumeric) return self > other ? 1 : -1;
  return BigInt(self) > BigInt(other) ? 1 : -1;
}

/** Two pre-releases, part by part (`comparePrereleases`). */
function comparePrereleases(self: string, other: string): number {
  if (self === other) return 0;
  const selfParts = self.split(".");
  const otherParts = other.split(".");
  for (let i = 0; i < Math.max(selfParts.length, otherParts.length); i++) {
    const compared = comparePart(selfParts[i] ?? "", otherParts[i] ?? "");
    if (compared !== 0) return compared;
  }
  return 0;
}

/**
 * Orders two versions (`Version.Compare`): -1, 0 or 1. Metadata is ignored; a pre-release is below
 * its release. As `go-version` does, versions with different numbers of segments are compared
 * segment by segment only (missing segments count as zero), their pre-releases unread.
 */
export function compareVersions(self: GoVersion, other: GoVersion): number {
  const a = self.segments;
  const b = other.segments;
  if (a.length === b.length && a.every((segment, i) => segment === b[i])) {
    if (self.prerelease === "" && other.prerelease === "") return 0;
    if (self.prerelease === "") return 1;
    if (other.prerelease === "") return -1;
    return comparePrereleases(self.prerelease, other.prerelease);
  }
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const left = a[i] ?? 0n;
    const right = b[i] ?? 0n;
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/** Whether two versions have the same segments. */
function sameSegments(self: GoVersion, other: GoVersion): boolean {
  return self.segments.length === other.segments.length && self.segments.every((segment, i) => segment === other.segments[i]);
}

/**
 * `go-version`'s pre-release rule for ordering operators: a pre-release satisfies only a constraint
 * that names a pre-release of the same segments.
 */
function prereleaseAllowed(version: GoVersion, constraint: GoVersion): boolean {
  if (version.prerelease !== "" && constraint.prerelease !== "") return sameSegments(version, constraint);
  return version.prerelease === "";
}

/** `~>`: at least the constraint, and the same in every segment but the last one written (`constraintPessimistic`). */
function pessimistic(version: GoVersion, constraint: GoVersion): boolean {
  if (!prereleaseAllowed(version, constraint) || (constraint.prerelease !== "" && version.prerelease === "")) return false;
  if (compareVersions(version, constraint) < 0) return false;
  const last = constraint.segments.length - 1;
  if (last >= version.segments.length) return false;
  for (let i = 0; i < constraint.written - 1; i++) if (version.segments[i] !== constraint.segments[i]) return false;
  return constraint.segments[last]! <= version.segments[last]!;
}

/** A constraint's operators, with their rule (`go-version`'s `constraintOperators`; the semver grammar has all but `~>` and no pre-release rule). */
type Operator = "" | "=" | "!=" | ">" | "<" | ">=" | "<=" | "~>";

/** Whether `version` meets one operator against `constraint`. */
function meets(operator: Operator, version: GoVersion, constraint: GoVersion, grammar: VersionGrammar): boolean {
  const ordered = grammar === "semver" || prereleaseAllowed(version, constraint);
  const compared = compareVersions(version, constraint);
  switch (operator) {
    case "":
    case "=":
      return compared === 0;
    case "!=":
      return compared !== 0;
    case ">":
      return ordered && compared > 0;
    case "<":
      return ordered && compared < 0;
    case ">=":
      return ordered && compared >= 0;
    case "<=":
      return ordered && compared <= 0;
    case "~>":
      return pessimistic(version, constraint);
    default: {
      const unknown: never = operator;
      return unknown;
    }
  }
}

/** A parsed set of constraints: a version meets it when it meets each one. */
export type VersionConstraints = (version: GoVersion) => boolean;

/**
 * Parses a comma-separated list of constraints (`version.NewConstraint`, or the reference's
 * `semver.NewConstraint`), or undefined when one of them is malformed (the reference then counts
 * the constraint unmet).
 */
export function parseConstraints(text: string, grammar: VersionGrammar): VersionConstraints | undefined {
  const parsed: { readonly operator: Operator; readonly version: GoVersion }[] = [];
  for (const single of text.split(",")) {
    const match = /^\s*(~>|>=|<=|!=|=|>|<)?\s*(\S+)\s*$/.exec(single);
    if (match === null) return undefined;
    const operator = (match[1] ?? "") as Operator;
    if (grammar === "semver" && operator === "~>") return undefined;
    const version = parseVersion(match[2]!, grammar);
    if (version === undefined) return undefined;
    parsed.push({ operator, version });
  }
  return (version) => parsed.every((each) => meets(each.operator, version, each.version, grammar));
}
