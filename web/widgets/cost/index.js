// Registers <attn-cost>: import this file, then <attn-cost d-model="64"></attn-cost>.
import { AttnCost } from './attn-cost.js';

export { AttnCost };
if (!customElements.get('attn-cost')) customElements.define('attn-cost', AttnCost);
