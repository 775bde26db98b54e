// Registers <attn-positional>: import this file, then <attn-positional></attn-positional>.
import { AttnPositional } from './attn-positional.js';

export { AttnPositional };
if (!customElements.get('attn-positional')) customElements.define('attn-positional', AttnPositional);
