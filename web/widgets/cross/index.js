// Registers <attn-cross>: import this file, then <attn-cross source="…" target="…"></attn-cross>.
import { AttnCross } from './attn-cross.js';

export { AttnCross };
if (!customElements.get('attn-cross')) customElements.define('attn-cross', AttnCross);
