// PDF export (`slidev export`, with or without clicks) waits for attnlab's widgets to be drawn.
//
// Slidev's exporter waits, on each page it prints, until no element of class `slidev-slide-loading` is
// left (its own marker for a slide still loading), then for `export.wait` ms, then prints. A widget
// draws after the WebAssembly core has started and typesets its formulas after that: on a busy
// machine a fixed pause was sometimes too short and a page was printed with a widget still blank or a
// stage behind. So in a print view every widget gets a hidden marker of that class beside it, put
// there in the task that added the widget (before the exporter can count the markers), and removed
// once the widget shows its current stage with every formula typeset. A widget that never gets there
// (no WebAssembly SIMD, a failed start: it then shows its message) loses its marker after MAX_WAIT_MS,
// well inside the exporter's own 30 s per wait, so an export never fails for it.

const MARKER = 'slidev-slide-loading'
const MAX_WAIT_MS = 20000

interface Widget extends HTMLElement {
  updateComplete?: Promise<unknown>
  stage?: unknown
}

/** Every element under `root`, through open shadow roots. */
function* deep(root: ParentNode): Generator<Element> {
  for (const el of root.querySelectorAll('*')) {
    yield el
    if (el.shadowRoot) yield* deep(el.shadowRoot)
  }
}

/**
 * True when `w` shows what it is asked for: rendered, not loading, its formulas typeset, its nested
 * elements updated, and (a stepped widget) its stage strip at the stage its `stage` attribute asks.
 */
function drawn(w: Widget): boolean {
  const root = w.shadowRoot
  if (!root || !root.childElementCount) return false
  for (const el of deep(root)) {
    if (el.classList.contains('loading') || el.classList.contains('pending')) return false
    if (el.tagName === 'ATTN-TEX' && !el.shadowRoot?.querySelector('.katex')) return false
  }
  const strip = root.querySelector('.stagestrip')
  const asked = w.getAttribute('stage')
  if (strip && asked !== null && asked !== '') {
    const current = [...strip.children].findIndex(li => li.classList.contains('current'))
    if (current !== Number(asked)) return false
  }
  return true
}

const nextFrame = () => new Promise<void>(ok => requestAnimationFrame(() => ok()))

async function watch(w: Widget, marker: HTMLElement) {
  const give = Date.now() + MAX_WAIT_MS
  try {
    while (Date.now() < give) {
      await customElements.whenDefined(w.localName).catch(() => undefined)
      await w.updateComplete
      // Drawn in two frames in a row: a stage set by the deck's clicks is not half applied.
      if (drawn(w)) {
        await nextFrame()
        if (drawn(w)) break
      }
      await nextFrame()
    }
    if (Date.now() >= give) console.warn(`attnlab: <${w.localName}> not drawn after ${MAX_WAIT_MS / 1000} s; printing it as it is`)
  }
  finally {
    marker.remove()
  }
}

function mark(w: Widget) {
  if (!w.parentNode || (w.previousElementSibling?.classList.contains(MARKER) && (w.previousElementSibling as HTMLElement).dataset.attnFor === w.localName)) return
  const marker = document.createElement('span')
  marker.className = MARKER
  marker.hidden = true
  marker.dataset.attnFor = w.localName
  w.before(marker)
  watch(w, marker)
}

const isWidget = (el: Element) => el.localName.startsWith('attn-') && el.localName !== 'attn-transformer-diagram'

/** In a print view (`?print…`, what `slidev export` opens), marks every widget until it is drawn. */
export function startPrintReady() {
  if (typeof window === 'undefined' || !new URLSearchParams(window.location.search).has('print')) return
  const scan = (root: ParentNode) => {
    for (const el of root.querySelectorAll('*')) if (isWidget(el)) mark(el as Widget)
  }
  // Observed from the start: a widget added with its slide gets its marker in the same task (the
  // observer's callback runs before the task ends), before the exporter looks for markers.
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (!(n instanceof Element)) continue
        if (isWidget(n)) mark(n as Widget)
        scan(n)
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true })
  scan(document)
}
