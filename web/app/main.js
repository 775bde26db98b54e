// The minimal app page: computes the notes' example through the WASM core and shows the numbers.
import { createAttnLab, supportsWasmSimd } from '../api/index.js';

const status = document.querySelector('.status');

function fillTable(table, values, rows, cols, rowLabels) {
  table.replaceChildren();
  for (let i = 0; i < rows; i++) {
    const tr = table.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = rowLabels[i];
    tr.append(th);
    for (let j = 0; j < cols; j++) tr.insertCell().textContent = values[i * cols + j].toFixed(4);
  }
}

async function main() {
  if (!supportsWasmSimd()) {
    status.textContent = 'This browser cannot run attnlab: it lacks WebAssembly SIMD. Please use a current Chrome, Edge, Firefox or Safari (16.4 or later).';
    return;
  }
  const lab = await createAttnLab();
  const X = [[0.2, 0.4, 0.6], [0.8, 0.3, 0.3], [0.1, 0.2, 0.5]];
  const WQ = [[1, 0], [0, 1], [1, -1]], WK = [[0.5, -0.5], [1, 0], [0, 1]], WV = [[1, 1], [0.5, -0.5], [1, 0]];
  const mm = (A, W) => A.flatMap((r) => W[0].map((_, j) => r.reduce((s, x, p) => s + x * W[p][j], 0)));
  const r = lab.attention({ q: mm(X, WQ), k: mm(X, WK), v: mm(X, WV), tq: 3, tk: 3, dk: 2, dv: 2 });
  const tokens = ['I', 'play', 'football'];
  fillTable(document.querySelector('.weights'), r.weights, 3, 3, tokens);
  fillTable(document.querySelector('.output'), r.output, 3, 2, tokens);
  document.querySelector('.demo').hidden = false;
  status.textContent = 'Computed in WebAssembly (SIMD128).';
}

main().catch((e) => {
  status.textContent = `attnlab failed to start: ${e.message}`;
  console.error(e);
});
