// Markup for the console's server-rendered pages. Every value a page interpolates is escaped unless
// it is itself markup made here: `html` tagged templates are the only way to make markup, so a
// vendor's `<img src=x onerror=…>` in any lead field is always text. Chosen over Preact with
// preact-render-to-string (which escapes as safely) because the pages are forms and tables with no
// client-side state: no JSX compiler setting, no dependency, nothing to bundle, and the rule
// "markup only from this template" is the whole of the safety argument (test/console/escaping).

/** Markup built by `html`: the only values interpolated without escaping. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What a template may interpolate: text is escaped, markup kept, lists joined, null/undefined/false left out. */
export type Interpolated = Html | string | number | bigint | boolean | null | undefined | Interpolated[];

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Escapes text for an element's content and for a quoted attribute value (both quotes escaped).
 * Templates always quote attributes, and never put a value in a script, a style, or a URL's scheme.
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function render(value: Interpolated): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** html`<td>${lead.customer_name}</td>`: the name is escaped; nested html`` stays markup. */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  let text = strings[0]!;
  for (let i = 0; i < values.length; i++) text += render(values[i]!) + strings[i + 1]!;
  return new Html(text);
}
