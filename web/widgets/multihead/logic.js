// Multi-head widget logic: the notes' "the / cat / sat" preset and how heads split the columns.

// Heads are column slices [head 1 | head 2] of each W (d_model 4, d_k 2). Head 2's W_K was lost in
// the OCR; [[0.2,0.3],[0.4,0.5],[0.6,0.7],[0.8,0.9]] reproduces the surviving K_sat,2 = [0.6, 0.8].
const side = (a, b) => [0, 1, 2, 3].flatMap((r) => [a[2 * r], a[2 * r + 1], b[2 * r], b[2 * r + 1]]);
export const CAT_SAT = {
  tokens: ['the', 'cat', 'sat'], dModel: 4, heads: 2,
  x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0],
  wq: side([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]),
  wk: side([0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1], [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]),
  wv: side([0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4], [0.5, 0.5, 0.6, 0.6, 0.7, 0.7, 0.8, 0.8]),
  wo: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
};

/** The head counts that divide d_model. */
export const headChoices = (dModel) => Array.from({ length: dModel }, (_, i) => i + 1).filter((h) => dModel % h === 0);

/** Columns [h·dk, (h+1)·dk) of a [rows·cols] matrix: head h's slice. */
export function headSlice(m, rows, cols, h, dk) {
  const out = new Float32Array(rows * dk);
  for (let i = 0; i < rows; i++) for (let j = 0; j < dk; j++) out[i * dk + j] = m[i * cols + h * dk + j];
  return out;
}
