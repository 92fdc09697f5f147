/**
 * Response bodies serialised by functions compiled once per operation from the documents' response
 * schemas (docs/request-path.md, "Serialising answers"), as Fastify compiles its serialisers at
 * start-up. The schema only says what to expect; it never decides the bytes: every compiled step
 * checks the value it meets and hands anything it does not expect (another type, an unknown key,
 * an object with a prototype of its own or `toJSON`, a schema it does not cover: `oneOf` other than
 * "X or null", `additionalProperties` maps, free-form objects) to `JSON.stringify`. So the answer is
 * always the bytes `JSON.stringify` gives for the same object, key order included (objects are
 * written in their own key order, as `JSON.stringify` writes them, each known key with its
 * compiled step).
 */

/** Writes one value as JSON text; undefined where `JSON.stringify` gives undefined (undefined, functions, symbols). */
export type Serialiser = (value: unknown) => string | undefined;

/** A JSON schema as the bundled documents hold it (only what is read here). */
interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}

const generic: Serialiser = (value) => JSON.stringify(value);

/** Characters `JSON.stringify` writes escaped: quote, backslash, controls and every surrogate (paired ones are checked below). */
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as `JSON.stringify` writes it: the common plain string quoted as is, any other by `JSON.stringify` itself. */
export function quote(text: string): string {
  return NEEDS_CARE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

const string: Serialiser = (value) => (typeof value === 'string' ? quote(value) : JSON.stringify(value));

const number: Serialiser = (value) => (typeof value === 'number' ? (Number.isFinite(value) ? `${value}` : 'null') : JSON.stringify(value));

const boolean: Serialiser = (value) => (value === true ? 'true' : value === false ? 'false' : JSON.stringify(value));

const SCALARS: Record<string, Serialiser> = { string, number, integer: number, boolean, null: generic };

/** `value` or null: null written at once, anything else by `step`. */
function orNull(step: Serialiser): Serialiser {
  return (value) => (value === null ? 'null' : step(value));
}

function array(items: Serialiser): Serialiser {
  return (value) => {
    if (!Array.isArray(value)) return JSON.stringify(value);
    let out = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out += ',';
      out += items(value[index]) ?? 'null'; // JSON.stringify writes null for undefined, functions and symbols in arrays
    }
    return out + ']';
  };
}

interface Property {
  /** The key as JSON text with its colon: `"name":`. */
  prefix: string;
  step: Serialiser;
}

/**
 * An object of known properties, written in its own key order. A plain object only (its prototype
 * Object.prototype or null, which also leaves out Dates, boxed primitives and class instances); one
 * with a key the schema does not name goes to `JSON.stringify` whole.
 */
function object(properties: Map<string, Property>): Serialiser {
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return JSON.stringify(value);
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) return JSON.stringify(value);
    const record = value as Record<string, unknown>;
    let out = '{';
    for (const key of Object.keys(record)) {
      const property = properties.get(key);
      if (property === undefined) return JSON.stringify(value);
      const text = property.step(record[key]);
      if (text === undefined) continue; // JSON.stringify leaves the key out
      out += out.length === 1 ? property.prefix + text : ',' + property.prefix + text;
    }
    return out + '}';
  };
}

/** Compiles the serialisers of one document's schemas, each `$ref` compiled once. */
export class SerialiserCompiler {
  private readonly byRef = new Map<string, Serialiser>();

  constructor(private readonly document: { components?: { schemas?: Record<string, Schema> } }) {}

  compile(schema: Schema | undefined): Serialiser {
    if (!schema || typeof schema !== 'object') return generic;
    if (schema.$ref !== undefined) return this.reference(schema.$ref);
    if (schema.allOf) return this.allOf(schema.allOf);
    const choices = schema.oneOf ?? schema.anyOf;
    if (choices) {
      // "X or null" only; any other choice is JSON.stringify's.
      const others = choices.filter((choice) => choice?.type !== 'null');
      return choices.length === 2 && others.length === 1 ? orNull(this.compile(others[0])) : generic;
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    const nullable = types.includes('null');
    const kinds = types.filter((type) => type !== 'null');
    if (kinds.length !== 1) return generic;
    const step = this.ofType(kinds[0], schema);
    return nullable ? orNull(step) : step;
  }

  private ofType(type: string, schema: Schema): Serialiser {
    if (type === 'array') return schema.items ? array(this.compile(schema.items)) : generic;
    if (type === 'object') {
      const properties = this.propertiesOf([schema]);
      return properties ? object(properties) : generic;
    }
    return SCALARS[type] ?? generic;
  }

  /** A `$ref` into the document's components, compiled on first use (a recursive schema meets its own placeholder). */
  private reference(ref: string): Serialiser {
    const known = this.byRef.get(ref);
    if (known) return known;
    let compiled: Serialiser = generic;
    this.byRef.set(ref, (value) => compiled(value));
    compiled = this.compile(this.resolve(ref));
    this.byRef.set(ref, compiled);
    return compiled;
  }

  private resolve(ref: string): Schema | undefined {
    const match = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
    return match ? this.document.components?.schemas?.[match[1]] : undefined;
  }

  /** `allOf` of object schemas: one object with every part's properties; anything else is JSON.stringify's. */
  private allOf(parts: Schema[]): Serialiser {
    const properties = this.propertiesOf(parts);
    return properties ? object(properties) : generic;
  }

  /** The properties of object schemas (through `$ref` and nested `allOf`), or undefined when one is not a plain object schema. */
  private propertiesOf(parts: Schema[], seen = new Set<string>()): Map<string, Property> | undefined {
    const properties = new Map<string, Property>();
    for (const raw of parts) {
      let part = raw;
      if (part?.$ref !== undefined) {
        if (seen.has(part.$ref)) return undefined;
        seen.add(part.$ref);
        part = this.resolve(part.$ref) as Schema;
      }
      if (!part || typeof part !== 'object' || part.oneOf || part.anyOf) return undefined;
      if (part.allOf) {
        const nested = this.propertiesOf(part.allOf, seen);
        if (!nested) return undefined;
        for (const [key, property] of nested) properties.set(key, property);
      }
      if (part.type !== undefined && part.type !== 'object') return undefined;
      if (!part.properties && !part.allOf) return undefined; // a free-form object
      for (const [key, schema] of Object.entries(part.properties ?? {})) {
        properties.set(key, { prefix: `${JSON.stringify(key)}:`, step: this.compile(schema) });
      }
    }
    return properties;
  }
}

/** An operation's compiled serialisers by status code, for the answers its document writes as JSON. */
export type StatusSerialisers = Map<number, Serialiser>;

interface OperationLike {
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** The serialisers of one operation's JSON answers (only numeric status codes; `default` and ranges are left alone). */
export function compileOperationSerialisers(compiler: SerialiserCompiler, operation: OperationLike): StatusSerialisers {
  const byStatus: StatusSerialisers = new Map();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const schema = response?.content?.['application/json']?.schema;
    if (/^\d{3}$/.test(status) && schema) byStatus.set(Number(status), compiler.compile(schema));
  }
  return byStatus;
}
