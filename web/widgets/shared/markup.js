// Many plain elements (a heatmap's cells, labels, colour bar, numbers table) drawn without a Lit
// template per update. A render describes the elements as a list of nodes (tag, attribute names and
// values, text or child nodes); placed(list) puts them into its place in the template: parsed once
// (one piece of markup) when the list's shape is new, else written into the elements already there,
// each attribute and text only when it differs from the one written last. Before, each update's
// markup string went through unsafeSVG/unsafeHTML: a new template element, a parse, a walk for
// bindings and a clone, for every change of a single number.
import { noChange } from 'lit';
import { Directive, PartType, directive } from 'lit/directive.js';
import { setCommittedValue } from 'lit/directive-helpers.js';

/**
 * A node: `tag`, attribute `names` (the same array object for every node of its kind, so a shape is
 * compared by identity), their `values` (strings), and `content`: its text, or an array of child nodes.
 */
export const node = (tag, names, values, content = '') => ({ tag, names, values, content, el: null });

/** Text for markup (a formatted number or a label: '&', '<' and '>' escaped). */
export const escapeText = (t) => String(t).replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
const escapeAttr = (t) => String(t).replace(/[&"]/g, (c) => (c === '&' ? '&amp;' : '&quot;'));

/** The markup of a list of nodes (what is parsed when the shape is new). */
export function markupOf(list) {
  let m = '';
  for (const d of list) {
    m += `<${d.tag}`;
    for (let k = 0; k < d.names.length; k++) m += ` ${d.names[k]}="${escapeAttr(d.values[k])}"`;
    m += `>${Array.isArray(d.content) ? markupOf(d.content) : escapeText(d.content)}</${d.tag}>`;
  }
  return m;
}

const sameNames = (a, b) => a === b || (a.length === b.length && a.every((n, k) => n === b[k]));

/** Writes list `now` into the elements of `old` (same shape); false when the shapes differ. */
function patch(old, now) {
  if (old.length !== now.length) return false;
  for (let i = 0; i < now.length; i++) {
    const a = old[i], b = now[i], el = a.el, kids = Array.isArray(b.content);
    if (!el || a.tag !== b.tag || !sameNames(a.names, b.names) || kids !== Array.isArray(a.content)) return false;
    b.el = el;
    const av = a.values, bv = b.values;
    for (let k = 0; k < bv.length; k++) if (av[k] !== bv[k]) el.setAttribute(b.names[k], bv[k]);
    if (kids) { if (!patch(a.content, b.content)) return false; }
    else if (a.content !== b.content) {
      const t = el.firstChild;
      if (b.content !== '' && t && t.nodeType === 3 && !t.nextSibling) t.data = b.content;
      else el.textContent = b.content;
    }
  }
  return true;
}

/** Points each node at its element, in the order the markup was parsed. */
function bind(list, first) {
  let el = first;
  for (const d of list) {
    d.el = el;
    if (!el) return;
    if (Array.isArray(d.content)) bind(d.content, el.firstElementChild);
    el = el.nextElementSibling;
  }
}

class Placed extends Directive {
  constructor(part) {
    super(part);
    if (part.type !== PartType.CHILD) throw new Error('placed() goes where child content goes');
    this.list = null;
  }

  render() { return noChange; }

  /** The last list's nodes pointed at their elements (the elements after this place's start marker). */
  #bound(part) {
    if (!this.bound) bind(this.list, part.startNode.nextElementSibling);
    this.bound = true;
    return true;
  }

  update(part, [list]) {
    if (list === this.list) { /* the same nodes (the renderer kept them): nothing changed */ }
    else if (!this.list || !this.#bound(part) || !patch(this.list, list)) {
      const parent = part.parentNode, range = document.createRange();
      // What this place held, out; the new markup parsed in its parent's context (SVG inside an svg,
      // table rows inside a tbody), owned by this document already (no adoption), then put in at once.
      range.setStartAfter(part.startNode);
      if (part.endNode) range.setEndBefore(part.endNode);
      else range.setEnd(parent, parent.childNodes.length);
      range.deleteContents();
      range.selectNodeContents(parent);
      parent.insertBefore(range.createContextualFragment(markupOf(list)), part.endNode);
      this.bound = false;  // its elements are found when first written to (many maps are drawn once)
    }
    this.list = list;
    // What Lit holds as this place's value: anything else rendered here later (e.g. nothing) clears it.
    setCommittedValue(part, this);
    return noChange;
  }
}

/** In a Lit template: the elements of `list`, kept from one render to the next (see above). */
export const placed = directive(Placed);
