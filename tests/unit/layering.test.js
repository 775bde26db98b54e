// The layers of web/, as docs/architecture.md draws them, held by the imports themselves:
//   web/api            the JS API over the WASM core; imports nothing else of attnlab
//   web/train          the trainer; imports web/api (and itself)
//   web/widgets/<w>/   one widget; imports its own folder, web/widgets/shared/, and web/api or web/train
//                      through their public entries (index.js) only — never another widget's folder,
//                      never a trainer's internals (engine.js): what a widget needs is public API.
//                      web/train has a second, data-only entry, pretrained-files.js (the shipped runs'
//                      file URLs), so a widget that reads a shipped run does not pull in the trainer
//   web/widgets/shared the widgets' common parts; imports web/api's entry
//   web/app            the standalone page: puts them together (and shows the decks' slides-only elements)
//   web/standalone     the one-script build (standalone/attnlab.js): the same, plus the reveal.js plugin
// Every static import, re-export and import('…') with a relative specifier is checked (tests excluded).
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const WEB = join(ROOT, 'web');

function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== 'wasm' && name !== 'node_modules') out.push(...sources(p)); }
    else if (/\.(js|mjs)$/.test(name) && !/\.test\.js$/.test(name)) out.push(p);
  }
  return out;
}

/** Relative specifiers a file imports, resolved to paths under the repo. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
  const found = new Set();
  for (const re of [/\bfrom\s*'(\.{1,2}\/[^']+)'/g, /\bimport\s*'(\.{1,2}\/[^']+)'/g, /\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g])
    for (const m of text.matchAll(re)) found.add(relative(ROOT, resolve(dirname(file), m[1])));
  return [...found];
}

/** Which layer a repo path is in: 'api', 'train', 'shared', 'widget:<name>', 'app' or null (outside web/). */
function layerOf(path) {
  const parts = path.split('/');
  if (parts[0] !== 'web') return null;
  if (parts[1] === 'widgets') return parts[2] === 'shared' ? 'shared' : parts.length > 3 ? `widget:${parts[2]}` : 'widgets';
  return parts[1];
}

const entry = { api: 'web/api/index.js', train: 'web/train/index.js', trainFiles: 'web/train/pretrained-files.js' };

function allowed(from, to, target) {
  if (from === to) return true;
  if (from === 'api') return false;
  if (from === 'train') return to === 'api';
  if (from === 'shared') return target === entry.api;
  if (from.startsWith('widget:')) return to === 'shared' || [entry.api, entry.train, entry.trainFiles].includes(target);
  return true;  // the app and web/widgets/index.js put the layers together
}

describe('layering of web/', () => {
  const files = sources(WEB);

  test('the layers are found (the test reads real files)', () => {
    const layers = new Set(files.map((f) => layerOf(relative(ROOT, f))));
    for (const l of ['api', 'train', 'shared', 'widget:steps', 'widget:train', 'widget:multihead', 'widget:embedding']) expect(layers).toContain(l);
    expect(files.flatMap(importsOf).length).toBeGreaterThan(100);
  });

  test('every relative import goes down a layer, or within one, through public entries', () => {
    const bad = [];
    for (const f of files) {
      const path = relative(ROOT, f), from = layerOf(path);
      for (const target of importsOf(f)) {
        const to = layerOf(target);
        // Only the app and the standalone build may reach outside web/ (the decks' slides-only elements;
        // the standalone build also exports the reveal.js plugin).
        if (to === null) { if (from !== 'app' && from !== 'standalone') bad.push(`${path} → ${target} (outside web/)`); continue; }
        if (!allowed(from, to, target)) bad.push(`${path} → ${target}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('the check catches what it is for', () => {
    expect(allowed('widget:train', 'train', 'web/train/engine.js')).toBe(false);
    expect(allowed('widget:cross', 'widget:multihead', 'web/widgets/multihead/pack.js')).toBe(false);
    expect(allowed('train', 'shared', 'web/widgets/shared/lab.js')).toBe(false);
    expect(allowed('api', 'train', 'web/train/index.js')).toBe(false);
    expect(allowed('widget:train', 'train', 'web/train/index.js')).toBe(true);
  });
});
