/**
 * A hint for a client of the reference talking to an agent in the default `svc` header style: the
 * reference's Go client, CLI and SDKs send `X-Nomad-Token` and read `X-Nomad-Index` and
 * `X-Nomad-NextToken`, which such an agent neither reads nor writes. The client decodes every
 * answer, but a `PerPage` loop stops after the first page, a `WaitIndex` loop spins and a
 * management token is refused, with no error to say why. So when a request carries an `X-Nomad-*`
 * header, the answer carries {@link HEADER_HINT} naming `--headers nomad`, and the agent logs a
 * warning saying the same, once.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HeaderStyle } from "../base/header-names.js";

/** The response header of the hint (in the `X-Svc-*` family, the only one such an agent writes). */
export const HEADER_HINT = "X-Svc-Header-Hint";

/** The hint's text, as the header's value and the warning's. */
export const HEADER_HINT_TEXT = "this agent reads and writes X-Svc-* headers, not X-Nomad-*: start it with --headers nomad (headers: \"nomad\") for a client of the reference";

/** The prefix of the reference's own headers, lower-case as Node gives request headers. */
const NOMAD_HEADER_PREFIX = "x-nomad-";

/** Whether a request carries an `X-Nomad-*` header (looked for without listing the names: every request asks). */
function hasNomadHeader(headers: IncomingMessage["headers"]): boolean {
  for (const name in headers) if (name.startsWith(NOMAD_HEADER_PREFIX)) return true;
  return false;
}

/**
 * The hint of one agent: a function to call on every request before it is answered, which adds
 * the header to the answer of a request with an `X-Nomad-*` header, and warns through `warn` the
 * first time. An agent in the `nomad` style gets a function that does nothing.
 */
export function headerHint(style: HeaderStyle, warn: (message: string) => void): (request: IncomingMessage, response: ServerResponse) => void {
  if (style === "nomad") return () => {};
  let warned = false;
  return (request, response) => {
    if (!hasNomadHeader(request.headers)) return;
    response.setHeader(HEADER_HINT, HEADER_HINT_TEXT);
    if (warned) return;
    warned = true;
    warn(`a request sent X-Nomad-* headers: ${HEADER_HINT_TEXT}`);
  };
}
