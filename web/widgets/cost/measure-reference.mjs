// Writes reference.js: the timings <attn-cost op="attention"> shows before (or without) a live run —
// on a slide before the audience sees it measure, and on the deck's PDF page. Same loop as the widget
// (timing.js), in Node (V8, the same WebAssembly build), on the machine it is run on.
//   node web/widgets/cost/measure-reference.mjs [machine description]
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { createAttnLab } from '../../api/index.js';
import { lengths } from './logic.js';
import { timeLengths } from './timing.js';

const d = 64, maxT = 1024;
const lab = await createAttnLab();
const results = [];
await timeLengths(lab, { op: 'attention', dModel: d, heads: 1, Ts: lengths(maxT), warmupMs: 2000, minTimeMs: 400 },
  { stopped: () => false, onResult: (r) => { results.push({ T: r.T, ms: Number(r.ms.toPrecision(4)), calls: r.calls }); console.log(r); }, pause: async () => {} });
const machine = process.argv[2] ?? `${cpus()[0]?.model.trim()}, ${cpus().length} cores`;
const ref = { op: 'attention', dModel: d, date: new Date().toISOString().slice(0, 10), where: `Node ${process.versions.node}, ${machine}`, results };
const { results: rs, ...head } = ref;  // one line per T
const body = `${JSON.stringify(head).slice(0, -1)}, "results": [\n${rs.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n]}`;
await writeFile(new URL('./reference.js', import.meta.url), `// Written by measure-reference.mjs (do not edit): <attn-cost op="attention">'s shipped timings, shown
// before a live run and on a deck's PDF page, labelled with where and when they were measured.
export const REFERENCE = ${body};
`);
