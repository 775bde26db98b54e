// pretrained-files.js — the URL of one file that ships under web/train/pretrained/<task>/, for every
// reader of those files (pretrained.js's loadPretrained, <attn-cross trained>'s trained.js). Kept as one
// `new URL(template, import.meta.url)` expression: that is the form Vite rewrites (a dynamic segment
// becomes a table of every file under pretrained/*/*, each emitted once — in the standalone inline build
// each inlined once: a second `new URL()` naming one of them would inline a second copy). In Node the
// same URL is a file: URL. Nothing else here, so a widget chunk that imports it stays small.
export const pretrainedUrl = (task, file) => new URL(`./pretrained/${task}/${file}`, import.meta.url);
