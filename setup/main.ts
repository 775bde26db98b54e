// The deck's app setup: registers every attnlab widget (one import) and keeps widget edits made in
// the presenter view in step with the audience view (attn-sync.ts). Keys typed into a widget need no
// guard here (unlike reveal.js): Slidev already leaves them alone — tests/e2e/slides.e2e.test.js
// checks it for a matrix cell and a <select> inside a widget's shadow root.
import { defineAppSetup } from '@slidev/types'
import '../../shared/widgets.js'
import { startWidgetSync } from './attn-sync'

export default defineAppSetup(({ router }) => {
  startWidgetSync(router)
})
