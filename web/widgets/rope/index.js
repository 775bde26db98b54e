// Registers <attn-rope>: import this file, then <attn-rope view="relative"></attn-rope>.
import { AttnRope } from './attn-rope.js';

export { AttnRope };
if (!customElements.get('attn-rope')) customElements.define('attn-rope', AttnRope);
