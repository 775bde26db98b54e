// Registers every attnlab widget (<attn-steps>, <attn-multihead>, …) and the slides-only components
// (<attn-timeline>, <attn-transformer-diagram>, <attn-embedding-lookup>, <attn-output-projection>).
// Both decks import this one module.
import '../../web/widgets/index.js';
import './attn-timeline.js';
import './attn-transformer-diagram.js';
import './attn-embedding-lookup.js';
