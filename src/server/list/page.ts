/**
 * Where the paginator was before it went behind the store: it is `state/page.ts` now, by which
 * every store cuts its pages ({@link Store.page}), so the rules of a page are written once. The
 * pipeline asks the store; this module only keeps the names at their former path (the seek's
 * property tests import them from here).
 *
 * @module
 */
export { cutPage, seek, type PageSource } from "../state/page.js";
