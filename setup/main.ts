// attnlab as a Slidev addon: Slidev runs this app setup in every deck whose headmatter has
// `addons: ['attnlab']`. It registers every attnlab widget and the slides-only components (one
// import), keeps widget edits made in the presenter view in step with the audience view
// (./attn-sync.ts) and holds a PDF export until the widgets are drawn (./print-ready.ts).
// ../components/AttnStepper.vue is picked up by Slidev as a component; the Vue and Vite settings are
// in ../vite.config.ts. Keys typed into a widget need no guard here (unlike reveal.js): Slidev
// already leaves them alone — tests/e2e/slides.e2e.test.js checks it.
import type { AppContext } from '@slidev/types'
import '../slides/shared/widgets.js'
import { startWidgetSync } from './attn-sync'
import { startPrintReady } from './print-ready'

// The same as `defineAppSetup(…)` from @slidev/types (an identity function), without a runtime
// import of that package.
export default ({ router }: AppContext) => {
  startWidgetSync(router)
  startPrintReady()
}
