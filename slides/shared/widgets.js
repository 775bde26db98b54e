// Registers every attnlab widget (<attn-steps>, <attn-multihead>, …), the widgets made for the decks'
// slides that compute with the core (<attn-embedding-lookup>, <attn-output-projection>: web/widgets/
// embedding/) and the slides-only drawings here (<attn-timeline>, <attn-transformer-diagram>).
// Both decks import this one module.
import '../../web/widgets/index.js';
import '../../web/widgets/embedding/index.js';
import './attn-timeline.js';
import './attn-transformer-diagram.js';
