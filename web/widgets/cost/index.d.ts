import type { AttnCost } from './attn-cost.js';
export { AttnCost };
declare global { interface HTMLElementTagNameMap { 'attn-cost': AttnCost; } }
