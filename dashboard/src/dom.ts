/**
 * A tiny DOM builder. Everything the API sends (names, messages, amounts) goes in as text nodes, never as HTML, so a
 * bot's message cannot inject markup; and nothing needs inline styles or scripts, which the page's CSP forbids.
 */
export type Child = Node | string | number | null | undefined | false;
export type Attributes = Record<string, string | number | boolean | null | undefined>;

/** Children as nodes: a text as a text node, never as HTML; null, undefined and false left out. */
const nodes = (children: (Child | Child[])[]): Node[] =>
  children
    .flat()
    .filter((child): child is Node | string | number => child !== null && child !== undefined && child !== false)
    .map((child) => (child instanceof Node ? child : document.createTextNode(String(child))));

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...nodes(children));
  return element;
}

/** A section named by its heading (an `h2` or `h3` with the id `${name}-title`), as a screen reader announces it. */
export function section(level: 'h2' | 'h3', name: string, title: string, ...children: (Child | Child[])[]): HTMLElement {
  return h('section', { 'aria-labelledby': `${name}-title` }, h(level, { id: `${name}-title` }, title), ...children);
}

/** A select's options from `[value, label]` pairs, the one whose value is `selected` marked so. */
export const options = (entries: (readonly [string, string])[], selected?: string): HTMLOptionElement[] =>
  entries.map(([value, label]) => h('option', { value, selected: value === selected }, label));

/** Replaces an element's content. */
export function fill(target: Element, ...children: (Child | Child[])[]): void {
  target.replaceChildren(...nodes(children));
}

/** On each `event` of `control`, `change` what a view shows, then `redraw` it. */
export function on(control: HTMLElement, event: string, change: () => void, redraw: () => void): void {
  control.addEventListener(event, () => {
    change();
    redraw();
  });
}

/**
 * A column of a `stackTable`: its label (also each cell's, for the stacked view), its cells' class (`num`: figures,
 * right-aligned under a right-aligned header), its cell of a row.
 */
export type StackColumn<T> = [label: string, className: string | null, cell: (row: T) => Child];

/**
 * A table that stacks on a phone (style.css, `table.stack`): each row headed by its `heading` cell (class `key`) when
 * it has one, then one cell per column, each labelled with its column's label. `head` may give a column header (0:
 * the heading's) its own attributes and content (the compare view's sort buttons).
 */
export function stackTable<T>(
  attributes: Attributes,
  heading: [label: string, cell: (row: T) => Child] | null,
  columns: StackColumn<T>[],
  rows: T[],
  rowAttributes: (row: T) => Attributes = () => ({}),
  head: (label: string, column: number) => [Attributes, Child] = (label) => [{}, label],
): HTMLTableElement {
  const th = (label: string, column: number, base: Attributes) => {
    const [own, content] = head(label, column);
    return h('th', { scope: 'col', ...base, ...own }, content);
  };
  const headers = columns.map(([label, className], i) => th(label, i + 1, { class: className?.includes('num') ? 'num' : null }));
  return h(
    'table',
    { class: 'stack', ...attributes },
    h('thead', {}, h('tr', {}, heading && th(heading[0], 0, {}), ...headers)),
    h(
      'tbody',
      {},
      ...rows.map((row) =>
        h(
          'tr',
          rowAttributes(row),
          heading && h('th', { scope: 'row', class: 'key', 'data-label': heading[0] }, heading[1](row)),
          ...columns.map(([label, className, cell]) => h('td', { class: className, 'data-label': label }, cell(row))),
        ),
      ),
    ),
  );
}
