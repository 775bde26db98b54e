import type { AttnPositional } from './attn-positional.js';
export { AttnPositional };
declare global { interface HTMLElementTagNameMap { 'attn-positional': AttnPositional; } }
