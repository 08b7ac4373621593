/**
 * The names of the agent's own HTTP headers, in each header style: the spec's `X-Svc-*` (the
 * default), or the reference's own `X-Nomad-*`, so that HashiCorp Nomad's Go client, CLI and SDKs
 * can be tested against the agent unchanged (the agent's `headers` option). One style is chosen
 * when the agent starts, and its {@link HeaderNames} are handed to every place that reads the
 * token or writes the meta headers; no other module spells these names.
 *
 * A style is strict: an agent of one style neither reads nor writes the other's headers, so that a
 * test suite sees exactly what the imitated server sends, and a client that sends the wrong token
 * header is refused as the real server would refuse it. `Authorization: Bearer <secret>` is read
 * in both styles, as the reference reads it besides `X-Nomad-Token`.
 *
 * @module
 */

/** The header styles: `svc`, the spec's `X-Svc-*` headers (the default); `nomad`, the reference's `X-Nomad-*`. */
export const HEADER_STYLES = ["svc", "nomad"] as const;

/** A header style (see {@link HEADER_STYLES}). */
export type HeaderStyle = (typeof HEADER_STYLES)[number];

/** The agent's own headers in one style. */
export interface HeaderNames {
  /** The style these names belong to. */
  readonly style: HeaderStyle;
  /** The request header of an ACL token's secret, lower-case, as Node gives request headers. */
  readonly token: string;
  /** The index of the state a read saw, or of a write (a blocking query's `?index` waits past it). */
  readonly index: string;
  /** Whether a leader is known (`true` or `false`). */
  readonly knownLeader: string;
  /** Milliseconds since the server answering last heard from the leader. */
  readonly lastContact: string;
  /** The token of the next page of a list, when more follows. */
  readonly nextToken: string;
}

/**
 * The names of each style, spelt as Go's canonical form of the reference's names (its server sets
 * `X-Nomad-KnownLeader`, which `Header().Set` makes `X-Nomad-Knownleader`). HTTP header names are
 * read in any case (the Go client's `Header.Get` included); the agent sends them lower-case, as
 * fastify writes every header name.
 */
export const HEADER_NAMES: Readonly<Record<HeaderStyle, HeaderNames>> = Object.freeze({
  svc: Object.freeze({ style: "svc", token: "x-svc-token", index: "X-Svc-Index", knownLeader: "X-Svc-Knownleader", lastContact: "X-Svc-Lastcontact", nextToken: "X-Svc-Nexttoken" }),
  nomad: Object.freeze({ style: "nomad", token: "x-nomad-token", index: "X-Nomad-Index", knownLeader: "X-Nomad-Knownleader", lastContact: "X-Nomad-Lastcontact", nextToken: "X-Nomad-Nexttoken" }),
});

/**
 * The token headers of every style, lower-case. The request journal redacts them all whatever the
 * agent's style: a secret sent in the other style's header is not read, but it is a secret still.
 */
export const TOKEN_HEADERS: readonly string[] = Object.freeze(HEADER_STYLES.map((style) => HEADER_NAMES[style].token));
