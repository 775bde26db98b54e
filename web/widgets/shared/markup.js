// Many plain elements (a heatmap's cells, labels, colour bar, numbers table; a plot's grid, ticks and
// series) drawn without a Lit template per element or per update. A render describes the elements as a
// list of nodes (tag, attribute names and values, text or child nodes); placed(list) puts them into its
// place in the template: made when the list's shape is new, else written into the elements already
// there, each attribute and text only when it differs from the one written last; a list longer or
// shorter than the last keeps the elements of their common start and adds or removes the rest.
// Elements are made one by one (createElementNS, setAttribute), not parsed from markup: at 4x CPU
// throttle a parse's fixed cost (range, fragment parser) was ~3 ms for a plot's few tick labels, and
// making them was faster at every size measured (8 to 3000 elements).
import { noChange } from 'lit';
import { Directive, PartType, directive } from 'lit/directive.js';
import { setCommittedValue } from 'lit/directive-helpers.js';

/**
 * A node: `tag`, attribute `names` (the same array object for every node of its kind, so a shape is
 * compared by identity), their `values` (strings or numbers, written as String(value)), and `content`:
 * its text, or an array of child nodes.
 */
export const node = (tag, names, values, content = '') => ({ tag, names, values, content, el: null });

const sameNames = (a, b) => a === b || (a.length === b.length && a.every((n, k) => n === b[k]));

/**
 * Writes node `b` into `el`, which shows node `a` (NEW for a new element): only the attributes and text
 * that differ. New and kept elements go through this one function, so a page's first update runs code
 * its first draws made fast already.
 */
function write(el, a, b) {
  const av = a.values, bv = b.values;
  for (let k = 0; k < bv.length; k++) if (av[k] !== bv[k] || k >= av.length) el.setAttribute(b.names[k], bv[k]);
  if (Array.isArray(b.content) || a.content === b.content) return;
  const t = el.firstChild;
  if (b.content !== '' && t && t.nodeType === 3 && !t.nextSibling) t.data = b.content;
  else el.textContent = b.content;
}
const NEW = { values: [], content: '' };

/** Writes the first `n` nodes of `now` into the elements of `old`'s; false when their shapes differ. */
function patch(old, now, n) {
  for (let i = 0; i < n; i++) {
    const a = old[i], b = now[i], el = a.el, kids = Array.isArray(b.content);
    if (!el || a.tag !== b.tag || !sameNames(a.names, b.names) || kids !== Array.isArray(a.content)) return false;
    b.el = el;
    write(el, a, b);
    if (kids && (a.content.length !== b.content.length || !patch(a.content, b.content, b.content.length))) return false;
  }
  return true;
}

/** The elements of `list` (namespace `ns`: SVG inside an svg, HTML inside a tbody), each node pointed at its own. */
function made(list, ns, doc) {
  const frag = doc.createDocumentFragment();
  for (const d of list) {
    const el = d.el = doc.createElementNS(ns, d.tag);
    write(el, NEW, d);
    if (Array.isArray(d.content)) el.append(made(d.content, ns, doc));
    frag.append(el);
  }
  return frag;
}

class Placed extends Directive {
  constructor(part) {
    super(part);
    if (part.type !== PartType.CHILD) throw new Error('placed() goes where child content goes');
    this.list = null;
  }

  render() { return noChange; }

  /** Writes `now` into the elements of `old`, adding or removing those at the end; false when it cannot. */
  #patched(parent, old, now) {
    const n = Math.min(old.length, now.length);
    if (n === 0 || !patch(old, now, n)) return false;
    const last = old[n - 1].el;
    if (now.length > n) parent.insertBefore(made(now.slice(n), parent.namespaceURI, parent.ownerDocument), last.nextSibling);
    else for (let i = n; i < old.length; i++) old[i].el.remove();
    return true;
  }

  update(part, [list]) {
    const parent = part.parentNode;
    if (list === this.list) { /* the same nodes (the renderer kept them): nothing changed */ }
    else if (!this.list || !this.#patched(parent, this.list, list)) {
      // What this place held, out (a Range only when it held something: a live Range is updated by
      // every later change of the document until it is collected); the new elements put in at once.
      if (part.startNode.nextSibling !== part.endNode) {
        const range = parent.ownerDocument.createRange();
        range.setStartAfter(part.startNode);
        if (part.endNode) range.setEndBefore(part.endNode);
        else range.setEnd(parent, parent.childNodes.length);
        range.deleteContents();
      }
      parent.insertBefore(made(list, parent.namespaceURI, parent.ownerDocument), part.endNode);
    }
    this.list = list;
    // What Lit holds as this place's value: anything else rendered here later (e.g. nothing) clears it.
    setCommittedValue(part, this);
    return noChange;
  }
}

/** In a Lit template: the elements of `list`, kept from one render to the next (see above). */
export const placed = directive(Placed);
