// Registers <attn-multihead>: import this file, then <attn-multihead preset="cat-sat"></attn-multihead>.
import { AttnMultihead } from './attn-multihead.js';

export { AttnMultihead };
if (!customElements.get('attn-multihead')) customElements.define('attn-multihead', AttnMultihead);
