// The reveal.js deck: KaTeX typesetting (bundled, no CDN), the attnlab widgets and the slides-only
// components, then Reveal with the attnlab plugin and the speaker notes plugin (fragments drive widget stages; typing in a widget
// never changes the slide).
import Reveal from 'reveal.js';
// Speaker view (press S): the <aside class="notes"> of each slide, a timer and the next slide; bundled, offline.
import RevealNotes from 'reveal.js/plugin/notes';
import 'reveal.js/reveal.css';
import 'reveal.js/theme/white.css';
import 'katex/dist/katex.min.css';
import renderMathInElement from 'katex/contrib/auto-render';
import '../shared/widgets.js';
import AttnLab from './plugin/attnlab.js';
import './style.css';

renderMathInElement(document.querySelector('.slides'), {
  delimiters: [{ left: '$$', right: '$$', display: true }, { left: '$', right: '$', display: false }],
  throwOnError: false,
});

const deck = new Reveal({
  hash: true,
  // A 16:9 canvas a little smaller than a 1280×720 screen: shown at ×1.05 there, so the widgets'
  // 14–16 px labels are 14 px or more on screen (a 1280×800 canvas was shown at ×0.87).
  width: 1180,
  height: 664,
  margin: 0.03,
  center: false,
  transition: 'fade',
  // The navigation arrows only in the speaker view: on the audience's screen they sat over the slide's
  // bottom-right corner, where widgets draw their colour bars and last numbers. Keys, a clicker or a
  // swipe step the deck.
  controls: 'speaker',
  // ?print-pdf: one page per slide step (a slide whose last paragraph's margin passes the canvas by a
  // few px would otherwise print a second, empty page).
  pdfMaxPagesPerSlide: 1,
  plugins: [AttnLab, RevealNotes],
});
deck.initialize();
// Exposed for the browser tests and for lecturers poking at the deck from the console.
window.deck = deck;
