import type { AttnBlock } from './attn-block.js';
export { AttnBlock };
declare global { interface HTMLElementTagNameMap { 'attn-block': AttnBlock; } }
