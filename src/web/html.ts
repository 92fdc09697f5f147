/**
 * The pages' template helper: `html` is a tagged template that escapes every interpolated value
 * unless it is already Html (a fragment built by `html` itself); arrays are joined. Escaped by
 * default, so nothing a person or an app typed can become markup.
 *
 * Written here rather than taken from a package: it is twenty lines, and the pages need nothing
 * a template engine adds.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i += 1) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Markup written by us, never by a person or an app (the stylesheet). */
export function trustedHtml(markup: string): Html {
  return new Html(markup);
}
