// Registers <attn-batched>: import this file, then <attn-batched stage="0"></attn-batched>.
import { AttnBatched } from './attn-batched.js';

export { AttnBatched };
if (!customElements.get('attn-batched')) customElements.define('attn-batched', AttnBatched);
