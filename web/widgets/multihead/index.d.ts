import type { AttnMultihead } from './attn-multihead.js';
export { AttnMultihead };
declare global { interface HTMLElementTagNameMap { 'attn-multihead': AttnMultihead; } }
