import type { AttnWhyScale } from './attn-why-scale.js';
export { AttnWhyScale };
declare global { interface HTMLElementTagNameMap { 'attn-why-scale': AttnWhyScale; } }
