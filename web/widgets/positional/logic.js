// <attn-positional> logic: what the learned table's map says at positions it has no row for. Pure
// functions (no DOM, no core), tested in Node beside it.

/** What a cell of the learned table past its trained length reads (the map, its numbers table). */
export const NOT_TRAINED = 'not trained';

/**
 * The learned table's readout (attn-heatmap readoutFor) for a table trained on T positions: past T,
 * "pos 23, dim 15: not trained (the table has rows 0–15)" (a row: "pos 23: not trained …"); '' for the
 * rows the table has (the map's own readout of the value).
 */
export function learnedReadout(T) {
  return (row, col) => {
    if (row < T) return '';
    const where = col === null || col === undefined ? `pos ${row}` : `pos ${row}, dim ${col}`;
    return `${where}: ${NOT_TRAINED} (the table has rows 0–${T - 1})`;
  };
}
