// Registers <attn-kernel-regression>: import this file, then <attn-kernel-regression bandwidth="0.5"></attn-kernel-regression>.
import { AttnKernelRegression } from './attn-kernel-regression.js';

export { AttnKernelRegression };
if (!customElements.get('attn-kernel-regression')) customElements.define('attn-kernel-regression', AttnKernelRegression);
