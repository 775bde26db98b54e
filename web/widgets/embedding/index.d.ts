import type { AttnEmbeddingLookup, AttnOutputProjection } from './attn-embedding-lookup.js';
export { AttnEmbeddingLookup, AttnOutputProjection };
declare global {
  interface HTMLElementTagNameMap { 'attn-embedding-lookup': AttnEmbeddingLookup; 'attn-output-projection': AttnOutputProjection; }
}
