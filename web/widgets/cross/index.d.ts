import type { AttnCross } from './attn-cross.js';
export { AttnCross };
declare global { interface HTMLElementTagNameMap { 'attn-cross': AttnCross; } }
