// markup.js: the markup a list of nodes is parsed from when its shape is new (what <attn-heatmap>
// drew as strings before: the same elements, attributes in the same order, text escaped).
import { describe, expect, test } from 'vitest';
import { escapeText, markupOf, node } from './markup.js';

describe('markupOf', () => {
  test('elements with attributes in order, text escaped, children nested', () => {
    const RECT = ['x', 'y', 'fill'], TEXT = ['class', 'x'];
    expect(markupOf([node('rect', RECT, ['1', '2.5', 'rgb(1 2 3)']), node('text', TEXT, ['num', '3'], '-0.50')]))
      .toBe('<rect x="1" y="2.5" fill="rgb(1 2 3)"></rect><text class="num" x="3">-0.50</text>');
    expect(markupOf([node('tr', [], [], [node('th', ['scope'], ['row'], '<b>&'), node('td', [], [], '')])]))
      .toBe('<tr><th scope="row">&lt;b&gt;&amp;</th><td></td></tr>');
  });
  test('attribute values are quoted safely', () => {
    expect(markupOf([node('text', ['transform'], ['translate(1,2) "x" & y'], 'a')])).toBe('<text transform="translate(1,2) &quot;x&quot; &amp; y">a</text>');
  });
  test('a number as text', () => {
    expect(markupOf([node('th', ['scope'], ['col'], 0)])).toBe('<th scope="col">0</th>');
    expect(escapeText('a<b>c&d')).toBe('a&lt;b&gt;c&amp;d');
  });
});
