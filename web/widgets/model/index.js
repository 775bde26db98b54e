// Registers <attn-model>: import this file, then <attn-model></attn-model> (or src="models/gpt2.safetensors").
import { AttnModel } from './attn-model.js';

export { AttnModel };
if (!customElements.get('attn-model')) customElements.define('attn-model', AttnModel);
