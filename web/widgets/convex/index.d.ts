import type { AttnConvex } from './attn-convex.js';
export { AttnConvex };
declare global { interface HTMLElementTagNameMap { 'attn-convex': AttnConvex; } }
