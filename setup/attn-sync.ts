// Presenter ↔ audience sync for attnlab widgets.
//
// Every widget emits `attn-state-change` { state } (composed, bubbles) after a user edit and accepts
// `applyState(state)`. This module listens for those events at the document, records the state under
// "<slide no>:<tag>:<index of that tag on the slide>" in a Slidev sync state, and applies recorded
// states to the same widget in every other window showing the deck: the audience view, the presenter
// view's current and next-slide previews, other tabs. Slidev renders a slide more than once in
// presenter mode, so widgets are identified by position, never by id.
//
// Transport is Slidev's own (createSyncState): on the dev server a server-reactive ref
// (`server-reactive:attnlab`, declared in ../vite.config.ts), in a static build a BroadcastChannel
// between tabs of the same browser — the same way Slidev syncs the current slide and clicks.
import type { Router } from 'vue-router'
import { nextTick, watch } from 'vue'
// @ts-expect-error - virtual module from vite-plugin-vue-server-ref
import serverState from 'server-reactive:attnlab'
import { createSyncState } from '@slidev/client/state/syncState.ts'

interface WidgetEntry { state: Record<string, unknown>, seq: number }
interface AttnSyncState { widgets: Record<string, WidgetEntry> }

interface Widget extends HTMLElement {
  getState?: () => Record<string, unknown>
  applyState?: (state: Record<string, unknown>) => void
}

const sync = createSyncState<AttnSyncState>(serverState, { widgets: {} })
let seq = 0

function pageOf(el: Element): { page: HTMLElement, no: number } | null {
  const page = el.closest<HTMLElement>('.slidev-page')
  const m = page?.className.match(/slidev-page-(\d+)/)
  return page && m ? { page, no: Number(m[1]) } : null
}

function keyOf(widget: Element): string | null {
  const where = pageOf(widget)
  if (!where) return null
  const tag = widget.tagName.toLowerCase()
  const index = [...where.page.querySelectorAll(tag)].indexOf(widget)
  return `${where.no}:${tag}:${index}`
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

// The presenter view's preview of the next click: it shows a widget's state, but does not act on it
// (<attn-train>'s `running` would start a training worker in a thumbnail).
const inPreview = (el: Element) => !!el.closest('.slidev-presenter .grid-section.next')

/** Applies every recorded state to the matching widgets rendered in this window. */
function applyAll() {
  for (const [key, entry] of Object.entries(sync.state.widgets ?? {})) {
    const [no, tag, index] = key.split(':')
    for (const page of document.querySelectorAll(`.slidev-page-${no}`)) {
      const widget = page.querySelectorAll(tag)[Number(index)] as Widget | undefined
      if (!widget?.applyState) continue
      const state = JSON.parse(JSON.stringify(entry.state)) as Record<string, unknown>
      const has = widget.getState?.()
      if (inPreview(widget)) {
        delete state.running
        delete has?.running
      }
      if (has && same(has, state)) continue
      widget.applyState(state)
    }
  }
}

export function startWidgetSync(router: Router) {
  sync.init('attnlab - widgets')
  document.addEventListener('attn-state-change', (event) => {
    const widget = event.composedPath()[0] as Widget
    const state = (event as CustomEvent).detail?.state
    const key = widget instanceof Element ? keyOf(widget) : null
    if (!key || !state) return
    // A new plain object each time (no reactive proxies: it is posted to the other windows), so the
    // deep watcher and the other windows see the change.
    const widgets = JSON.parse(JSON.stringify(sync.state.widgets ?? {})) as AttnSyncState['widgets']
    widgets[key] = { state: JSON.parse(JSON.stringify(state)), seq: ++seq }
    sync.patch('widgets', widgets)
    // The same slide may be rendered twice in this window (presenter: current + next preview).
    applyAll()
  })
  watch(() => sync.state.widgets, () => nextTick(applyAll), { deep: true })
  // Widgets on a slide that was not rendered when the change arrived pick it up when shown.
  router.afterEach(() => nextTick(() => setTimeout(applyAll, 0)))
}
