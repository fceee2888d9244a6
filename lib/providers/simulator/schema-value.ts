// The value the simulator builds for a client's JSON schema (a forced tool's arguments, a json_schema response
// format), within limits: docs/simulator.md, "Values built from a client's schema".

export type Schema = {
  type?: unknown;
  properties?: unknown;
  required?: unknown;
  items?: unknown;
  prefixItems?: unknown;
  enum?: unknown;
  const?: unknown;
  anyOf?: unknown;
  oneOf?: unknown;
  allOf?: unknown;
  minItems?: unknown;
  maxItems?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
  minimum?: unknown;
  exclusiveMinimum?: unknown;
  maximum?: unknown;
  format?: unknown;
  default?: unknown;
  $ref?: unknown;
};

/**
 * What the simulator builds from a client's schema at most (README.md, "The built-in simulator channel";
 * docs/simulator.md has the reasons and the measurements). Sizes in a schema are numbers the client chose, so each is
 * checked before anything is made, and the whole value is counted while it is built: past any of these the request
 * is refused with a 400, and nothing was allocated in proportion to the number asked for.
 */
export const SCHEMA_LIMITS = {
  /** Items of one array: `minItems`, or the entries of `prefixItems` / a tuple's `items`. */
  items: 1_000,
  /** Characters of one string: `minLength`. */
  stringLength: 10_000,
  /** Nesting of the value (objects and arrays inside one another). */
  depth: 32,
  /** `$ref`, `anyOf`/`oneOf` and `allOf` steps followed in a row without a value between them. */
  hops: 32,
  /** Characters of the value written as JSON (counted as it is built; an upper bound of the written length). */
  characters: 32_768,
  /** Schema nodes, properties and `required` entries visited while building. */
  steps: 20_000,
} as const;

/** A schema the simulator refuses to build a value for: the message names the limit and where it was passed. */
export class SchemaLimitError extends Error {
  override readonly name = "SchemaLimitError";
}

const SUFFIX = " (simulated)";
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const grouped = (count: number) => count.toLocaleString("en-US");

/** Where a schema node sits, as a chain (the text is made only for an error message); `key` follows `segment`. */
type Where = { parent: Where | null; segment: string; key?: string };

function keyText(key: string): string {
  const name = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  return IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A count keyword as a number (the vendors' schemas hold numbers; a numeric string is read as one, NaN as none). */
function countOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = Number(value);
  return Number.isNaN(number) ? undefined : Math.ceil(number);
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Characters of `text` written as a JSON string, counted until `limit` is passed (then some number above it). */
function stringSize(text: string, limit: number): number {
  let size = 2;
  for (let index = 0; index < text.length && size <= limit; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c) size += 2;
    else if (code < 0x20) size += 6;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        size += 2;
        index++;
      } else size += 6;
    } else if (code >= 0xdc00 && code <= 0xdfff) size += 6;
    else size += 1;
  }
  return size;
}

function numberSize(value: number): number {
  return Number.isFinite(value) ? String(value).length : 4;
}

/** Sets a property even when its name is `__proto__` (a plain assignment would set the prototype instead). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function allowsNull(schema: unknown): boolean {
  if (!isSchema(schema)) return false;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  const choices = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : [];
  return choices.length <= 64 && choices.some((choice) => isSchema(choice) && choice.type === "null");
}

/**
 * Builds a minimal value valid against a schema, within SCHEMA_LIMITS. One builder per value: it counts the
 * characters and steps spent so far, and knows which `$ref`s it is inside, so that recursion stops at the first
 * place the schema lets it (an optional property left out, an empty array, a null) and a `$ref` cycle is named.
 */
class ValueBuilder {
  private characters = 0;
  private steps = 0;
  /** Sizes of const/default/enum values already measured (one may be copied into many items). */
  private readonly measured = new WeakMap<object, { size: number; depth: number }>();
  /** The `$ref`s being expanded on the way to the current node, in order (for naming a cycle)... */
  private readonly expanding: string[] = [];
  /** ...and for each, the depths it was entered at. */
  private readonly open = new Map<string, number[]>();
  /** Each `$ref` resolved once: its target and where that is, for messages. */
  private readonly targets = new Map<string, { target: unknown; at: Where }>();

  constructor(
    private readonly root: unknown,
    private readonly base: string,
  ) {
    // The root is being expanded from the start: a `$ref: "#"` inside it is a recursion like any other.
    this.open.set("#", [-1]);
    this.expanding.push("#");
  }

  private where(at: Where | null): string {
    const segments: string[] = [];
    for (let node = at; node; node = node.parent) segments.push(node.key === undefined ? node.segment : node.segment + keyText(node.key));
    return this.base + segments.reverse().join("");
  }

  private refuse(what: string): never {
    throw new SchemaLimitError(
      `The built-in simulator does not build a value for this schema: ${what}. Its limits are listed in the gateway's README.`,
    );
  }

  private step(at: Where | null, count = 1): void {
    this.steps += count;
    if (this.steps > SCHEMA_LIMITS.steps)
      this.refuse(`building its value takes more than ${grouped(SCHEMA_LIMITS.steps)} steps (reached at ${this.where(at)})`);
  }

  private charge(size: number, at: Where | null): void {
    this.characters += size;
    if (this.characters > SCHEMA_LIMITS.characters)
      this.refuse(`its value passes ${grouped(SCHEMA_LIMITS.characters)} characters of JSON at ${this.where(at)}`);
  }

  private remaining(): number {
    return SCHEMA_LIMITS.characters - this.characters;
  }

  private tooDeep(at: Where | null): never {
    this.refuse(
      `the value at ${this.where(at)} nests more than ${SCHEMA_LIMITS.depth} levels deep (a recursive $ref that never ends builds no finite value)`,
    );
  }

  private loops(schema: unknown): boolean {
    return isSchema(schema) && typeof schema.$ref === "string" && (this.open.get(schema.$ref)?.length ?? 0) > 0;
  }

  private child(at: Where | null, key: string, prefix = ".properties"): Where {
    return { parent: at, segment: prefix, key };
  }

  value(schema: unknown, name: string, at: Where | null, depth: number, hops: number): unknown {
    this.step(at);
    if (depth > SCHEMA_LIMITS.depth) this.tooDeep(at);
    if (!isSchema(schema)) return this.literal(null, at);
    if (typeof schema.$ref === "string") return this.reference(schema.$ref, name, at, depth, hops);
    if ("const" in schema) return this.copy(schema.const, at, depth);
    if (Array.isArray(schema.enum) && schema.enum.length) return this.copy(schema.enum[0], at, depth);
    if (schema.default !== undefined) return this.copy(schema.default, at, depth);
    const choices = Array.isArray(schema.anyOf) && schema.anyOf.length ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
    if (choices?.length) {
      const index = this.choose(choices, at);
      const keyword = choices === schema.anyOf ? "anyOf" : "oneOf";
      return this.value(choices[index], name, { parent: at, segment: `.${keyword}[${index}]` }, depth, this.hop(hops, at));
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length)
      return this.value(this.merge(schema.allOf, at), name, at, depth, this.hop(hops, at));
    const type = Array.isArray(schema.type) ? (schema.type.find((entry) => entry !== "null") ?? "null") : schema.type;
    if (type === "object" || (!type && isSchema(schema.properties))) return this.object(schema, at, depth);
    if (type === "array") return this.array(schema, name, at, depth);
    if (type === "integer" || type === "number") return this.number(schema, type, at);
    if (type === "boolean") return this.literal(true, at);
    if (type === "null") return this.literal(null, at);
    return this.string(schema, name, at);
  }

  private hop(hops: number, at: Where | null): number {
    if (hops >= SCHEMA_LIMITS.hops)
      this.refuse(`${this.where(at)} follows more than ${SCHEMA_LIMITS.hops} $ref, anyOf and allOf steps in a row`);
    return hops + 1;
  }

  private reference(ref: string, name: string, at: Where | null, depth: number, hops: number): unknown {
    const hopsAfter = this.hop(hops, at);
    let depths = this.open.get(ref);
    const last = depths?.at(-1);
    // The same $ref again with no value in between: it would expand forever.
    if (last === depth) {
      const chain = this.expanding.slice(this.expanding.lastIndexOf(ref));
      const shown = chain.length > 6 ? [...chain.slice(0, 3), "…", ...chain.slice(-2)] : chain;
      this.refuse(
        `${this.where(at)} is a $ref cycle (${[...shown, ref].map((entry) => entry.slice(0, 80)).join(" → ")}) with no value in between`,
      );
    }
    let resolved = this.targets.get(ref);
    if (!resolved) {
      const pointer = ref.slice(1).split("/", 8).slice(1);
      resolved = { target: this.resolve(ref, at), at: { parent: null, segment: pointer.length ? `.${pointer.join(".")}` : "" } };
      this.targets.set(ref, resolved);
    }
    // Recursion: where the schema allows a null, the value ends here.
    if (last !== undefined && allowsNull(resolved.target)) return this.literal(null, at);
    if (!depths) this.open.set(ref, (depths = []));
    depths.push(depth);
    this.expanding.push(ref);
    const value = this.value(resolved.target, name, resolved.at, depth, hopsAfter);
    this.expanding.pop();
    depths.pop();
    return value;
  }

  /** A local JSON pointer (`#`, `#/$defs/Name`, `#/definitions/Name/properties/x`); anything else resolves to nothing. */
  private resolve(ref: string, at: Where | null): unknown {
    if (ref !== "#" && !ref.startsWith("#/")) return undefined;
    let node: unknown = this.root;
    if (ref === "#") return node;
    for (const raw of ref.slice(2).split("/")) {
      this.step(at);
      let key: string;
      try {
        key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      } catch {
        return undefined;
      }
      if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  }

  /** The first choice that is neither null nor a recursion; else null if it is offered; else the first. */
  private choose(choices: unknown[], at: Where | null): number {
    let fallback: number | undefined;
    for (let index = 0; index < choices.length; index++) {
      this.step(at);
      const choice = choices[index];
      const isNull = isSchema(choice) && choice.type === "null";
      if (!isNull && !this.loops(choice)) return index;
      if (isNull && fallback === undefined) fallback = index;
    }
    return fallback ?? 0;
  }

  /** allOf: the parts' keywords in one schema (each part's own $ref resolved), properties and `required` joined. */
  private merge(parts: unknown[], at: Where | null): Schema {
    const merged: Record<string, unknown> = {};
    const properties: Record<string, unknown> = {};
    const required: unknown[] = [];
    for (const raw of parts) {
      this.step(at);
      const part = isSchema(raw) && typeof raw.$ref === "string" ? this.resolve(raw.$ref, at) : raw;
      if (!isSchema(part)) continue;
      for (const key in part) {
        if (!Object.hasOwn(part, key)) continue;
        this.step(at);
        const entry = (part as Record<string, unknown>)[key];
        if (key === "properties" && isSchema(entry)) {
          for (const property in entry) {
            if (!Object.hasOwn(entry, property)) continue;
            this.step(at);
            put(properties, property, (entry as Record<string, unknown>)[property]);
          }
        } else if (key === "required" && Array.isArray(entry)) {
          this.step(at, entry.length);
          required.push(...entry);
        } else if (key !== "allOf" && key !== "$ref") put(merged, key, entry);
      }
    }
    return { ...merged, properties, required };
  }

  private object(schema: Schema, at: Where | null, depth: number): Record<string, unknown> {
    const value: Record<string, unknown> = {};
    this.charge(2, at);
    const properties = isSchema(schema.properties) ? (schema.properties as Record<string, unknown>) : {};
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    // Every property the schema lists (strict schemas require all of them), required or not; an optional one that
    // recurses is left out, so a recursive schema ends.
    for (const key in properties) {
      if (!Object.hasOwn(properties, key)) continue;
      this.step(at);
      const property = properties[key];
      if (this.loops(property)) {
        this.step(at, required.length);
        if (!required.includes(key)) continue;
      }
      const where = this.child(at, key);
      this.charge(stringSize(key, this.remaining()) + 2, where);
      put(value, key, this.value(property, key, where, depth + 1, 0));
    }
    for (const key of required) {
      this.step(at);
      if (typeof key !== "string" || Object.hasOwn(value, key)) continue;
      const where = this.child(at, key, ".required");
      this.charge(stringSize(key, this.remaining()) + 2, where);
      put(value, key, this.string({}, key, where));
    }
    return value;
  }

  private array(schema: Schema, name: string, at: Where | null, depth: number): unknown[] {
    const tuple = Array.isArray(schema.items) ? schema.items : Array.isArray(schema.prefixItems) ? schema.prefixItems : null;
    if (tuple) {
      const keyword = tuple === schema.items ? "items" : "prefixItems";
      if (tuple.length > SCHEMA_LIMITS.items)
        this.refuse(
          `'${keyword}' lists ${tuple.length} schemas at ${this.where(at)}, above its limit of ${grouped(SCHEMA_LIMITS.items)} items per array`,
        );
      this.charge(2 + tuple.length, at);
      const values: unknown[] = [];
      for (let index = 0; index < tuple.length; index++)
        values.push(this.value(tuple[index], `${name}${index}`, { parent: at, segment: `.${keyword}[${index}]` }, depth + 1, 0));
      return values;
    }
    const minItems = countOf(schema.minItems);
    if (minItems !== undefined && minItems > SCHEMA_LIMITS.items)
      this.refuse(`'minItems' is ${minItems} at ${this.where(at)}, above its limit of ${grouped(SCHEMA_LIMITS.items)} items per array`);
    // One example item, unless the items recurse (then none, when the schema allows it) or maxItems says fewer.
    let count = Math.max(this.loops(schema.items) ? 0 : 1, minItems ?? 0);
    const maxItems = countOf(schema.maxItems);
    if (maxItems !== undefined && maxItems >= (minItems ?? 0)) count = Math.min(count, Math.max(0, maxItems));
    this.charge(2 + count, at);
    const values: unknown[] = [];
    const where = { parent: at, segment: ".items" };
    for (let index = 0; index < count; index++) values.push(this.value(schema.items, name, where, depth + 1, 0));
    return values;
  }

  private number(schema: Schema, type: "integer" | "number", at: Where | null): number {
    const minimum = finite(schema.minimum);
    const exclusive = finite(schema.exclusiveMinimum);
    const maximum = finite(schema.maximum);
    const low = minimum ?? (exclusive !== undefined ? exclusive + 1 : undefined);
    const value = low !== undefined ? Math.max(low, 1) : 1;
    const bounded = maximum !== undefined ? Math.min(value, maximum) : value;
    const result = type === "integer" ? Math.ceil(bounded) : bounded;
    this.charge(numberSize(result), at);
    return result;
  }

  private literal<T extends boolean | null>(value: T, at: Where | null): T {
    this.charge(value === false ? 5 : 4, at);
    return value;
  }

  private string(schema: Schema, name: string, at: Where | null): string {
    const minLength = countOf(schema.minLength);
    if (minLength !== undefined && minLength > SCHEMA_LIMITS.stringLength)
      this.refuse(
        `'minLength' is ${minLength} at ${this.where(at)}, above its limit of ${grouped(SCHEMA_LIMITS.stringLength)} characters per string`,
      );
    let value = formatted(schema.format);
    if (value === null) {
      const base = name === "city" || name === "location" ? "Paris" : name || "value";
      value = base === "Paris" ? base : base + SUFFIX;
      const maxLength = countOf(schema.maxLength);
      // Cut from the parts, so that a long property name is never copied whole to be cut.
      if (maxLength !== undefined && value.length > maxLength) {
        const keep = Math.max(0, maxLength);
        value = keep <= base.length ? base.slice(0, keep) : base + SUFFIX.slice(0, keep - base.length);
      }
      if (minLength !== undefined && value.length < minLength) {
        this.charge(stringSize(value, this.remaining()) + minLength - value.length, at);
        return value.padEnd(minLength, "x");
      }
    }
    this.charge(stringSize(value, this.remaining()), at);
    return value;
  }

  /** A const, enum or default value, used as it is: its size and nesting counted (each object measured once). */
  private copy(value: unknown, at: Where | null, depth: number): unknown {
    this.charge(this.measure(value, this.remaining(), at, depth).size, at);
    return value;
  }

  /**
   * JSON characters of `value` at nesting `level`, counted until `limit` is passed (then some number above it), and
   * how many levels it nests below itself; a value deeper than SCHEMA_LIMITS.depth is refused on the way down.
   */
  private measure(value: unknown, limit: number, at: Where | null, level: number): { size: number; depth: number } {
    if (level > SCHEMA_LIMITS.depth) this.tooDeep(at);
    if (typeof value === "string") return { size: stringSize(value, limit), depth: 0 };
    if (typeof value === "number") return { size: numberSize(value), depth: 0 };
    if (typeof value !== "object" || value === null) return { size: value === false ? 5 : 4, depth: 0 };
    const known = this.measured.get(value);
    if (known) {
      if (level + known.depth > SCHEMA_LIMITS.depth) this.tooDeep(at);
      return known;
    }
    let size = 2;
    let depth = 0;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length && size <= limit; index++) {
        const inner = this.measure(value[index], limit - size, at, level + 1);
        size += inner.size + 1;
        depth = Math.max(depth, inner.depth + 1);
      }
    } else {
      for (const key in value) {
        if (size > limit) break;
        if (!Object.hasOwn(value, key)) continue;
        size += stringSize(key, limit - size) + 2;
        const inner = this.measure((value as Record<string, unknown>)[key], limit - size, at, level + 1);
        size += inner.size;
        depth = Math.max(depth, inner.depth + 1);
      }
    }
    const result = { size, depth };
    // Only a complete measure is kept (one cut at the limit is refused by the caller's charge anyway).
    if (size <= limit) this.measured.set(value, result);
    return result;
  }
}

function formatted(format: unknown): string | null {
  switch (format) {
    case "date-time":
      return "2026-01-01T00:00:00Z";
    case "date":
      return "2026-01-01";
    case "time":
      return "00:00:00";
    case "email":
      return "someone@example.com";
    case "uri":
    case "url":
      return "https://example.com/";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
  }
  return null;
}

/**
 * A small value valid against `schema`: required properties filled, enums and consts honoured, bounds respected,
 * recursion ended where the schema allows it. Throws SchemaLimitError past SCHEMA_LIMITS; `where` names the schema
 * in the request (`tools[0].function.parameters`) for that message.
 */
export function instanceOf(schema: unknown, name = "value", where = "the schema"): unknown {
  return new ValueBuilder(schema, where).value(schema, name, null, 0, 0);
}
