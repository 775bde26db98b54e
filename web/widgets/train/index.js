// Registers <attn-train>: import this file, then <attn-train task="induction"></attn-train>.
import { AttnTrain } from './attn-train.js';

export { AttnTrain };
if (!customElements.get('attn-train')) customElements.define('attn-train', AttnTrain);
