/**
 * What each match operator does with the value it finds, by the kind of that value, exactly as
 * the reference does (including which errors it raises, and in which order).
 *
 * Negated operators (`!=`, `not in`, `is not empty`, `is not nil`, `not matches`) negate the
 * positive result only when it succeeded; errors pass through unchanged.
 *
 * @module
 */
import { containsBytes, equalsInteger, type Literal } from "./literal.js";
import type { Pattern } from "./regex.js";
import { fail, ownValue, type Site } from "./resolve.js";
import type { ElementType, ValueType } from "./schema.js";
import type { Parsed } from "../go/strconv.js";

export { OPERATORS, type Test } from "../operators.js";

/** The literal coerced to an integer, float or bool kind, or the reference's error (with what it means). */
function coerced<T>(parsed: Parsed<T>, site: Site): T {
  if (parsed.ok) return parsed.value;
  return fail(site, "invalid_literal", `error getting match value in expression: ${parsed.error}`, explainConversion(parsed.error, site.selectorText));
}

/**
 * What a failed conversion of the literal means, from the reference's `strconv` error: the kind
 * the field holds, and what to compare it with (the literal is read as that kind, quoted or not).
 */
export function explainConversion(error: string, selector: string): string | undefined {
  const range = error.endsWith("value out of range");
  if (error.startsWith("strconv.ParseInt")) {
    return range ? `${selector} holds 64-bit integers, and the value is out of their range` : `${selector} holds integers: compare it with a whole number, such as 50`;
  }
  if (error.startsWith("strconv.ParseUint")) {
    return range ? `${selector} holds unsigned 64-bit integers, and the value is out of their range` : `${selector} holds unsigned integers: compare it with a whole number from 0`;
  }
  if (error.startsWith("strconv.ParseFloat")) return `${selector} holds numbers: compare it with a number, such as 1.5`;
  if (error.startsWith("strconv.ParseBool")) return `${selector} holds true or false: compare it with true or false`;
  return undefined;
}

/** The literal coerced to the kind of `type`; strings and containers take the raw text. */
function coerceFor(type: ValueType, literal: Literal, site: Site): void {
  switch (type.kind) {
    case "int":
      coerced(literal.int, site);
      return;
    case "uint":
      coerced(literal.uint, site);
      return;
    case "float":
      coerced(literal.float, site);
      return;
    case "bool":
      coerced(literal.bool, site);
      return;
    default:
      return;
  }
}

/** `==`: compares the literal, coerced to the value's kind, with the value. */
export function testEqual(type: ValueType, value: unknown, literal: Literal, site: Site): boolean {
  switch (type.kind) {
    case "string":
      return value === literal.raw;
    case "int":
      return equalsInteger(value as number | bigint, coerced(literal.int, site));
    case "uint":
      return equalsInteger(value as number | bigint, coerced(literal.uint, site));
    case "float":
      return Number(value) === coerced(literal.float, site);
    case "bool":
      return value === coerced(literal.bool, site);
    case "slice":
    case "map":
    case "struct":
    case "invalid":
      return fail(site, "unsupported_operand", "unable to find suitable primitive comparison function for matching");
    default:
      return unreachable(type.kind);
  }
}

/** `in` / `contains`: substring of a string, element of a list, key of a map. */
export function testIn(type: ValueType, value: unknown, literal: Literal, site: Site): boolean {
  // The reference coerces the literal to the container's kind before looking at the container.
  coerceFor(type, literal, site);
  switch (type.kind) {
    case "string":
      return literal.bytes === undefined ? (value as string).includes(literal.raw) : containsBytes(value as string, literal.bytes);
    case "map":
      return value !== null && ownValue(value as object, literal.raw) !== undefined;
    case "slice":
      // A typed list coerces the literal to its element kind even when it is nil or empty.
      if (type.elements !== undefined) return inTypedList((value ?? []) as readonly unknown[], type.elements, literal, site);
      return value !== null && inJsonList(value as readonly unknown[], literal, site);
    case "int":
    case "uint":
    case "float":
    case "bool":
    case "struct":
    case "invalid":
      return fail(site, "unsupported_operand", `cannot perform in/contains operations on type ${type.kindName} for selector: ${JSON.stringify(site.selectorText)}`);
    default:
      return unreachable(type.kind);
  }
}

/**
 * `in` over a decoded JSON list: each element is compared by its own kind, and elements the
 * literal cannot be coerced to (a bool element for `"5"`) are skipped. Numbers compare by their
 * decimal text, as the reference's `json.Number` elements do.
 */
function inJsonList(list: readonly unknown[], literal: Literal, site: Site): boolean {
  for (let i = 0; i < list.length; i++) {
    const element = list[i];
    switch (typeof element) {
      case "string":
        if (element === literal.raw) return true;
        break;
      case "number":
      case "bigint":
        if (String(element) === literal.raw) return true;
        break;
      case "boolean":
        if (literal.bool.ok && literal.bool.value === element) return true;
        break;
      default:
        if (element === null || element === undefined) {
          return fail(site, "nil_value", `cannot compare with element ${i} of ${JSON.stringify(site.selectorText)}: it is null (the reference panics here)`);
        }
        return fail(
          site,
          "unsupported_operand",
          `unable to find suitable primitive comparison function for "in" comparison in interface slice: ${Array.isArray(element) ? "slice" : "map"}`,
        );
    }
  }
  return false;
}

/** `in` over a typed list: the literal is coerced once to the element kind, and must coerce. */
function inTypedList(list: readonly unknown[], elements: ElementType, literal: Literal, site: Site): boolean {
  const { kind, zero } = elements;
  const element = (i: number) => list[i] ?? zero;
  switch (kind) {
    case "string":
      for (let i = 0; i < list.length; i++) if (element(i) === literal.raw) return true;
      return false;
    case "int":
    case "uint": {
      const wanted = coerced(kind === "int" ? literal.int : literal.uint, site);
      for (let i = 0; i < list.length; i++) if (equalsInteger(element(i) as number | bigint, wanted)) return true;
      return false;
    }
    case "float": {
      const wanted = coerced(literal.float, site);
      for (let i = 0; i < list.length; i++) if (Number(element(i)) === wanted) return true;
      return false;
    }
    case "bool": {
      const wanted = coerced(literal.bool, site);
      for (let i = 0; i < list.length; i++) if (element(i) === wanted) return true;
      return false;
    }
    default:
      return fail(site, "unsupported_operand", 'unable to find suitable primitive comparison function for "in" comparison');
  }
}

/**
 * `is empty`: a string, list or map of length zero (a nil list or map is empty). A map's size is
 * only known by listing its keys; the caller may pass the count it already has.
 */
export function testEmpty(type: ValueType, value: unknown, site: Site, keyCount?: number): boolean {
  switch (type.kind) {
    case "string":
      return (value as string).length === 0;
    case "slice":
      return value === null || (value as readonly unknown[]).length === 0;
    case "map":
      return value === null || (keyCount ?? Object.keys(value as object).length) === 0;
    case "int":
    case "uint":
    case "float":
    case "bool":
    case "struct":
    case "invalid":
      return fail(site, "unsupported_operand", `cannot perform is-empty operations on type ${type.kindName} for selector: ${JSON.stringify(site.selectorText)}`);
    default:
      return unreachable(type.kind);
  }
}

/** `is nil`: null and nil pointers are nil; a nil list or map (typed) is nil; a struct never is. */
export function testNil(type: ValueType, value: unknown, site: Site): boolean {
  switch (type.kind) {
    case "invalid":
      return true;
    case "slice":
    case "map":
      return value === null;
    case "struct":
      return false;
    case "string":
    case "int":
    case "uint":
    case "float":
    case "bool":
      return fail(site, "unsupported_operand", `cannot perform is-nil operations on type ${type.kindName} for selector: ${JSON.stringify(site.selectorText)}`);
    default:
      return unreachable(type.kind);
  }
}

/** `matches`: an unanchored RE2 search in a string. */
export function testMatches(type: ValueType, value: unknown, pattern: Pattern, site: Site): boolean {
  switch (type.kind) {
    case "string":
      return pattern.test(value as string);
    case "invalid":
      return fail(site, "nil_value", `cannot match a null value for selector: ${JSON.stringify(site.selectorText)} (the reference panics here)`);
    case "int":
    case "uint":
    case "float":
    case "bool":
    case "slice":
    case "map":
    case "struct":
      return fail(site, "unsupported_operand", `value of type ${type.typeName} is not convertible to []byte`);
    default:
      return unreachable(type.kind);
  }
}

function unreachable(kind: never): never {
  throw new Error(`unhandled value kind ${String(kind)}`);
}
