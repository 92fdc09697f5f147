/**
 * SQL as tagged templates (docs/statements.md), written here rather than taken from a package.
 *
 * Why our own: sql-template-tag (the maintained package that fits pg and knex, and was used first)
 * flattens every fragment into new string and value arrays when it is built, at every level of
 * nesting, and builds the whole text again each time it is read. A request's statement nests a
 * dozen fragments (the credentials' check, visibility, available services…), so that was tens of
 * kilobytes of garbage and a hash of a fresh multi-kilobyte text per request: the bench measured
 * three times the garbage collection and 6-8 % less throughput on the hot reads.
 *
 * Here a template only keeps what it was given. Its text is compiled once per SHAPE (which
 * templates, raw texts and joins, in which order), found by a short key of template ids, so a
 * request allocates the key, one array of values, and nothing else; the `$n` text, the `?` text
 * and the prepared statement's name of a shape are computed once per process.
 */
import crypto from 'node:crypto';

/** A statement or a fragment of one. Its values are bound where they appear; nested fragments are spliced in. */
export class Sql {
  private compiledForm?: Compiled;

  /** @param strings the template's text around its parts (one more than `parts`); @param key its own part of the shape key. */
  constructor(
    readonly strings: readonly string[],
    readonly parts: readonly unknown[],
    private readonly key: string,
  ) {}

  /** The text with `$1, $2…` placeholders (pg). */
  get text(): string {
    return this.compiled().shape.text;
  }

  /** The text with `?` placeholders (knex). */
  get sql(): string {
    return this.compiled().shape.sql;
  }

  /** The values, in placeholder order. */
  get values(): unknown[] {
    return this.compiled().values;
  }

  /** The prepared statement name of its text: the same text always has the same name, on every connection. */
  get name(): string {
    return this.compiled().shape.name;
  }

  private compiled(): Compiled {
    this.compiledForm ??= compile(this);
    return this.compiledForm;
  }

  /** Appends this fragment's shape key and values (depth first). */
  collect(values: unknown[], key: string[]): void {
    key.push(this.key);
    for (const part of this.parts) {
      if (part instanceof Sql) {
        key.push('(');
        part.collect(values, key);
        key.push(')');
      } else {
        key.push('?'); // a value here: the same template with a fragment in its place is another shape
        values.push(part);
      }
    }
  }

  /** Appends this fragment's text, numbering its placeholders from `next.n` (`$n`) or with `?`. */
  write(out: string[], next: { n: number }, positional: boolean): void {
    this.parts.forEach((part, index) => {
      out.push(this.strings[index]);
      if (part instanceof Sql) part.write(out, next, positional);
      else out.push(positional ? `$${++next.n}` : '?');
    });
    out.push(this.strings[this.parts.length]);
  }
}

interface Shape {
  text: string;
  sql: string;
  name: string;
}
interface Compiled {
  shape: Shape;
  values: unknown[];
}

/** Ids of the templates seen (a template literal's strings array is one object per place in the code). */
const templateIds = new WeakMap<readonly string[], string>();
let lastTemplateId = 0;

/** Compiled shapes by key; bounded (the code has a few hundred shapes, raw texts included). */
const shapes = new Map<string, Shape>();
const MAX_SHAPES = 2000;

function compile(statement: Sql): Compiled {
  const values: unknown[] = [];
  const keyParts: string[] = [];
  statement.collect(values, keyParts);
  const key = keyParts.join('');
  let shape = shapes.get(key);
  if (!shape) {
    const dollar: string[] = [];
    statement.write(dollar, { n: 0 }, true);
    const question: string[] = [];
    statement.write(question, { n: 0 }, false);
    const text = dollar.join('');
    shape = { text, sql: question.join(''), name: nameOf(text) };
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  return { shape, values };
}

/** The prepared statement name of a text: a hash, so the same text has the same name on every connection and instance. */
const nameOf = (text: string) => `daybook_${crypto.createHash('sha1').update(text).digest('base64url')}`;

/** Names of texts that come from elsewhere (knex's queries marked PREPARED), hashed once per text. */
const namedTexts = new Map<string, string>();
const MAX_NAMED_TEXTS = 1000;

/** The prepared statement name of a text built outside these templates (db/knex.ts), hashed once per text. */
export function statementName(text: string): string {
  let name = namedTexts.get(text);
  if (name === undefined) {
    name = nameOf(text);
    if (namedTexts.size < MAX_NAMED_TEXTS) namedTexts.set(text, name);
  }
  return name;
}

/** A statement or a fragment: `sql\`select … where a.user_id = ${userId} and ${fragment}\``. */
export function sql(strings: TemplateStringsArray, ...parts: unknown[]): Sql {
  let id = templateIds.get(strings);
  if (id === undefined) {
    id = `t${++lastTemplateId}`;
    templateIds.set(strings, id);
  }
  return new Sql(strings, parts, id);
}

/**
 * The shape key of each raw text: a short id per distinct text, so that a statement's key (joined
 * and hashed at every compile) carries a few characters per raw fragment instead of its whole text
 * (a write's column lists and comparisons made its key about a kilobyte). Bounded like `shapes`;
 * past the bound a text gets a new id, which only makes its shapes new ones.
 */
const rawIds = new Map<string, string>();
let lastRawId = 0;

/** Trusted text spliced in as it is (a table alias, a fixed column list): never a value from a request. */
export function raw(text: string): Sql {
  let id = rawIds.get(text);
  if (id === undefined) {
    id = `r${++lastRawId}`;
    if (rawIds.size >= MAX_SHAPES) rawIds.clear();
    rawIds.set(text, id);
  }
  return new Sql([text], [], id);
}

/** No text at all. */
export const empty = raw('');

/** Fragments (or values) joined by `separator`; an empty list is the empty fragment. */
export function join(parts: readonly unknown[], separator = ', '): Sql {
  if (parts.length === 0) return empty;
  const strings = ['', ...parts.slice(1).map(() => separator), ''];
  return new Sql(strings, parts, `j${parts.length}:${separator.length}:${separator}`);
}
