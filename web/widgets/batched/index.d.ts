import type { AttnBatched } from './attn-batched.js';
export { AttnBatched };
declare global { interface HTMLElementTagNameMap { 'attn-batched': AttnBatched; } }
