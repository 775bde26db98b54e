// Registers <attn-block>: import this file, then <attn-block norm="pre"></attn-block>.
import { AttnBlock } from './attn-block.js';

export { AttnBlock };
if (!customElements.get('attn-block')) customElements.define('attn-block', AttnBlock);
