import type { AttnKernelRegression } from './attn-kernel-regression.js';
export { AttnKernelRegression };
declare global { interface HTMLElementTagNameMap { 'attn-kernel-regression': AttnKernelRegression; } }
