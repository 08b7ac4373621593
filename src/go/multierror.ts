/**
 * hashicorp/go-multierror's text for several errors, as the reference's validation errors read.
 *
 * @module
 */

/** go-multierror's text for a list of errors (an item may itself be such a text). */
export function formatErrors(errors: readonly string[]): string {
  const items = errors.map((error) => `* ${error}`).join("\n\t");
  return `${errors.length === 1 ? "1 error" : `${errors.length} errors`} occurred:\n\t${items}\n\n`;
}

/** The reference's text for warnings (`helper.MergeMultierrorWarnings`): `""` for none. */
export function formatWarnings(warnings: readonly string[]): string {
  if (warnings.length === 0) return "";
  const head = warnings.length === 1 ? "1 warning:\n" : `${warnings.length} warnings:\n`;
  return head + warnings.map((warning) => `\n* ${warning.trim()}`).join("");
}
