import type { AttnModel } from './attn-model.js';
export { AttnModel };
declare global { interface HTMLElementTagNameMap { 'attn-model': AttnModel; } }
