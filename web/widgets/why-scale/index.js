// Registers <attn-why-scale>: import this file, then <attn-why-scale></attn-why-scale>.
import { AttnWhyScale } from './attn-why-scale.js';

export { AttnWhyScale };
if (!customElements.get('attn-why-scale')) customElements.define('attn-why-scale', AttnWhyScale);
