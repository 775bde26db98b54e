// Registers <attn-embedding-lookup> and <attn-output-projection> (the decks' embedding and output-layer
// slides): import this file (the decks do, through slides/shared/widgets.js), then
// <attn-embedding-lookup token="2"></attn-embedding-lookup>.
import { AttnEmbeddingLookup, AttnOutputProjection } from './attn-embedding-lookup.js';

export { AttnEmbeddingLookup, AttnOutputProjection };
if (!customElements.get('attn-embedding-lookup')) customElements.define('attn-embedding-lookup', AttnEmbeddingLookup);
if (!customElements.get('attn-output-projection')) customElements.define('attn-output-projection', AttnOutputProjection);
