/**
 * Namespaces: how a definition is checked and how the API writes one.
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import type { JsonObject, Namespace } from "../state/model.js";
import { invalid } from "../base/errors.js";
import { formatErrors } from "../../go/multierror.js";

/** The reference's `structs.Namespace`, as namespace bodies are decoded. */
export const NAMESPACE_BODY: ObjectSchema = {
  kind: "object",
  typeName: "Namespace",
  fields: {
    Name: "string",
    Description: "string",
    Quota: "string",
    Capabilities: "any",
    NodePoolConfiguration: "any",
    VaultConfiguration: "any",
    ConsulConfiguration: "any",
    Meta: { kind: "map", values: "string" },
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

const NAMESPACE_NAME = /^[a-zA-Z0-9-]{1,128}$/;
const MAX_DESCRIPTION = 256;

/** A namespace as the API writes it (the reference's field order). */
export function namespaceResponse(namespace: Namespace): unknown {
  return {
    Name: namespace.Name,
    Description: namespace.Description,
    Quota: namespace.Quota,
    Capabilities: null,
    NodePoolConfiguration: null,
    VaultConfiguration: null,
    ConsulConfiguration: null,
    Meta: namespace.Meta,
    CreateIndex: namespace.CreateIndex,
    ModifyIndex: namespace.ModifyIndex,
  };
}

/** Checks a namespace definition as the reference does; returns the fields to store. */
export function validateNamespace(body: JsonObject): Omit<Namespace, "CreateIndex" | "ModifyIndex"> {
  const name = typeof body.Name === "string" ? body.Name : "";
  const description = typeof body.Description === "string" ? body.Description : "";
  const problems: string[] = [];
  if (!NAMESPACE_NAME.test(name)) problems.push(`invalid name ${JSON.stringify(name)}. Must match regex ^[a-zA-Z0-9-]{1,128}$`);
  if (description.length > MAX_DESCRIPTION) problems.push(`description longer than ${MAX_DESCRIPTION}`);
  // Invalid definitions are client mistakes: 400, where the reference answers 500.
  if (problems.length > 0) throw invalid(`Invalid namespace ${JSON.stringify(name)}: ${formatErrors(problems)}`);
  const meta = body.Meta !== null && typeof body.Meta === "object" && !Array.isArray(body.Meta) ? (body.Meta as Record<string, string>) : null;
  return { Name: name, Description: description, Quota: typeof body.Quota === "string" ? body.Quota : "", Meta: meta };
}
