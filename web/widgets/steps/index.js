// Registers <attn-steps>. Embed anywhere: import 'attnlab/web/widgets/steps/index.js'; then
// <attn-steps preset="football"></attn-steps>.
import { AttnSteps } from './attn-steps.js';

export { AttnSteps };
if (!customElements.get('attn-steps')) customElements.define('attn-steps', AttnSteps);
