// Written by measure-reference.mjs (do not edit): <attn-cost op="attention">'s shipped timings, shown
// before a live run and on a deck's PDF page, labelled with where and when they were measured.
export const REFERENCE = {"op": "attention", "dModel": 64, "date": "2026-11-27", "where": "Node 20.20.2, 2-core AMD EPYC VM", "results": [
  {"T": 16, "ms": 0.05728, "calls": 7034},
  {"T": 32, "ms": 0.104, "calls": 3847},
  {"T": 64, "ms": 0.3015, "calls": 1330},
  {"T": 128, "ms": 0.9605, "calls": 445},
  {"T": 256, "ms": 3.716, "calls": 108},
  {"T": 512, "ms": 18.92, "calls": 23},
  {"T": 1024, "ms": 87.47, "calls": 5}
]};
