import Reveal from 'reveal.js';
import Markdown from 'reveal.js/plugin/markdown';
import 'reveal.js/reveal.css';
import 'reveal.js/theme/white.css';
import AttnLab from 'attnlab/reveal';
import 'attnlab/slides/shared/widgets.js';

window.deck = new Reveal({ hash: true, plugins: [Markdown, AttnLab] });
window.deck.initialize();
