// Registers <attn-convex>: import this file, then <attn-convex></attn-convex>.
import { AttnConvex } from './attn-convex.js';

export { AttnConvex };
if (!customElements.get('attn-convex')) customElements.define('attn-convex', AttnConvex);
