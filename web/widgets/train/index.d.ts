import type { AttnTrain } from './attn-train.js';
export { AttnTrain };
declare global { interface HTMLElementTagNameMap { 'attn-train': AttnTrain; } }
