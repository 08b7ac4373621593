/**
 * The HTTP layer's documented limits and names, in a module of their own: `bexpr/server` exports
 * them without loading the HTTP layer itself (fastify), which the first agent started loads.
 *
 * @module
 */

/** Largest accepted request body (a job spec); larger bodies get 413. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Longest path parameter routed (`/v1/namespace/<name>`, `/v1/acl/policy/<name>`), in
 * characters as sent (URL-encoded). Names may be 128 characters, and each can take three when
 * encoded; fastify's default of 100 answered 404 for valid names of 101 to 128 characters.
 */
export const MAX_PATH_PARAM_LENGTH = 1_024;

/**
 * The most bytes of request line and headers, Go's `http.DefaultMaxHeaderBytes` as the reference
 * serves: a filter of `MAX_SOURCE_LENGTH` characters fits in a query string even percent-encoded.
 * Node's default of 16 KiB answered 431 to any filter longer than about 16,000 characters.
 */
export const MAX_HEADER_BYTES = 1_048_576;

/**
 * The memory the lane's entries may hold (their keys), apart from the answers, which stay in the
 * pipeline's answer cache: 4 MiB is about 10,000 distinct list requests with short filters.
 */
export const LIST_LANE_BYTES = 4 * 1024 * 1024;

/**
 * The most evaluation IDs one `DELETE /v1/evaluations` may name, the reference's
 * `structs.MaxUUIDsPerWriteRequest` (what fits in a 256 KiB Raft entry): more is a 400.
 */
export const MAX_EVAL_IDS_PER_DELETE = 7281;

/** The header of `GET /_bexpr/requests` that counts the entries the journal dropped to stay within its limits. */
export const JOURNAL_DROPPED_HEADER = "X-Bexpr-Dropped";
