// The standalone build's entry (web/standalone/vite.config.js builds it into standalone/attnlab.js and,
// with everything inlined, standalone/attnlab.inline.js): one script that a page without a bundler loads
//
//   <script type="module" src="attnlab/attnlab.js"></script>
//   <attn-steps preset="football"></attn-steps>
//
// It registers every widget (the lecture's <attn-…> tags, the slides' ones and <attn-timeline>,
// <attn-transformer-diagram>), puts KaTeX's stylesheet (its fonts beside the script) into the page,
// and exports the API, the trainer and the reveal.js plugin. Every file it needs — the .wasm, the
// training worker, the shipped snapshots, the fonts, the lazily loaded GPT-2 vocabulary — is found
// relative to the script (`new URL(…, import.meta.url)`), so the folder works wherever it is copied.
import '../../slides/shared/widgets.js';
import './katex-document.js';  // KaTeX's stylesheet into <head> (the inline build: katex-document.inline.js)

export { createAttnLab, supportsWasmSimd, AttnLabError, createTokenizer, createGpt2Tokenizer } from '../api/index.js';
export { createTrainer, loadPretrained, openPretrained } from '../train/index.js';
export * from '../widgets/index.js';
export { AttnEmbeddingLookup, AttnOutputProjection } from '../widgets/embedding/index.js';
// reveal.js: `new Reveal({ plugins: [RevealAttnLab] })` (plugins are named Reveal… by reveal.js's convention).
export { default as RevealAttnLab, notTypingInWidget, stagesFor } from '../../slides/reveal/plugin/attnlab.js';
