import { expect, test } from 'vitest';
import { DICTIONARY, conceptOf, embed, hashString, isKnown, scaledIdentity } from './logic.js';

test('a word and its translation share a concept; embeddings are deterministic', () => {
  expect(conceptOf('Chat')).toBe('cat');
  expect(conceptOf('zebra')).toBe('zebra');
  expect(hashString('cat')).toBe(hashString('cat'));
  expect(hashString('cat')).not.toBe(hashString('cta'));
  const [cat, chat, dog] = [embed(['cat'], 8), embed(['chat'], 8), embed(['dog'], 8)];
  expect(embed(['cat'], 8)).toEqual(cat);
  const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
  expect(dot(cat, chat)).toBeGreaterThan(dot(cat, dog));
});

test('scaledIdentity', () => {
  expect(Array.from(scaledIdentity(2, 3))).toEqual([3, 0, 0, 3]);
});

test('the toy dictionary knows its concepts and their translations, and no other word', () => {
  for (const w of ['the', 'cat', 'Chat', 'noir', 'schwarz', 'mat', 'tapis']) expect(isKnown(w)).toBe(true);
  for (const w of ['tree', 'est', 'zebra', '']) expect(isKnown(w)).toBe(false);
  expect(DICTIONARY.black).toEqual(['noir', 'schwarz']);
});
