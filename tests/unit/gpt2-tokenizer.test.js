// createGpt2Tokenizer (web/api/gpt2-tokenizer.js): GPT-2's own ids, round trips of any Unicode, the
// pieces the widget shows, '<|endoftext|>', bad input, and that the vocabulary stays out of every page
// that does not ask for it (only a dynamic import reaches it).
import { beforeAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { AttnLabError, createGpt2Tokenizer } from 'attnlab';
import { seededRandom } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PACKAGE_DIR = dirname(createRequire(import.meta.url).resolve('gpt-tokenizer/package.json'));

let gpt2;
beforeAll(async () => { gpt2 = await createGpt2Tokenizer(); });

const ids = (s) => Array.from(gpt2.encode(s));

describe('GPT-2 ids', () => {
  test('as in GPT-2 itself (its encoder.json, models/124M)', () => {
    expect(gpt2.encode('Hello world')).toBeInstanceOf(Int32Array);
    expect(ids('Hello world')).toEqual([15496, 995]);
    expect(ids(' Hello')).toEqual([18435]);  // 'ĠHello': the leading space is part of the token
    expect(ids('Hello')).toEqual([15496]);
    expect(ids(' the')).toEqual([262]);
    expect(ids('\n')).toEqual([198]);
    expect(ids(' SolidGoldMagikarp')).toEqual([43453]);  // the famous "glitch token"
    expect(ids('')).toEqual([]);
  });

  // gpt-tokenizer 4.0.0, src/GptEncoding.test.ts: `sharedResults`, used for r50k_base and gpt2.
  test.each([
    [' ', [220]],
    ['\t', [197]],
    ['This is some text', [1212, 318, 617, 2420]],
    ['indivisible', [521, 452, 12843]],
    ['hello 👋 world 🌍', [31373, 50169, 233, 995, 12520, 234, 235]],
    ['toString constructor hasOwnProperty valueOf', [1462, 10100, 23772, 468, 23858, 21746, 1988, 5189]],
    ['hello, I am a text, and I have commas. a,b,c', [31373, 11, 314, 716, 257, 2420, 11, 290, 314, 423, 725, 292, 13, 257, 11, 65, 11, 66]],
  ])('the package\'s own test: %j', (s, expected) => {
    expect(ids(s)).toEqual(expected);
    expect(gpt2.decode(expected)).toBe(s);
  });

  test('every r50k_base case of the package\'s test plans (gpt-tokenizer/data/TestPlans.txt)', () => {
    const plans = readFileSync(join(PACKAGE_DIR, 'data/TestPlans.txt'), 'utf8').split('\n\n')
      .map((block) => block.split('\n'))
      .filter(([name, sample, encoded]) => name === 'EncodingName: r50k_base' && sample && encoded)
      .map(([, sample, encoded]) => ({ sample: sample.split(': ').slice(1).join(': '), encoded: JSON.parse(encoded.split(': ')[1]) }));
    expect(plans.length).toBeGreaterThanOrEqual(60);  // 64 in 4.0.0: English, CJK, Cyrillic, Hangul, emoji flags, code
    for (const { sample, encoded } of plans) {
      expect(ids(sample), sample).toEqual(encoded);
      expect(gpt2.decode(encoded), sample).toBe(sample);
    }
  });
});

describe('what the widget shows', () => {
  test('token(id): the text GPT-2 sees, leading space shown', () => {
    expect(gpt2.token(995)).toBe(' world');  // 'Ġworld'
    expect(gpt2.token(18435)).toBe(' Hello');
    expect(gpt2.token(0)).toBe('!');  // the first byte token (byte 33)
    expect(gpt2.token(188)).toBe('\u0000');  // byte 0 ('Ā' in GPT-2's files)
    expect(gpt2.token(220)).toBe(' ');
    expect(gpt2.token(50255)).toBe(' gazed');  // the last merge
    expect(gpt2.token(50256)).toBe('<|endoftext|>');
    expect(gpt2.token(94)).toBe('\uFFFD');  // byte 0xA1 alone is no character
  });

  test('pieces: GPT-2\'s split of words and their leading spaces', () => {
    expect(gpt2.pieces('Hello world')).toEqual(['Hello', ' world']);
    expect(gpt2.pieces(' indivisible')).toEqual(ids(' indivisible').map((id) => gpt2.token(id)));
    expect(gpt2.pieces('indivisible')).toEqual(['ind', 'iv', 'isible']);
    expect(gpt2.pieces("they're  here\n")).toEqual(['they', "'re", ' ', ' here', '\n']);
  });

  test('pieces: a character spread over tokens is on the token that completes it', () => {
    // 👋 is F0 9F 91 8B: ' ' + F0 9F 91 is token 50169 and 8B is token 233; 🌍 is 12520 · 234 · 235.
    expect(gpt2.pieces('hello 👋 world 🌍')).toEqual(['hello', ' ', '👋', ' world', ' ', '', '🌍']);
    expect(gpt2.token(50169)).toBe(' \uFFFD');
    // The package's decodeGenerator joins the same text (its test's decodedHelloWorldTokens).
    expect(gpt2.pieces('hello 👋 world 🌍').filter(Boolean)).toEqual(['hello', ' ', '👋', ' world', ' ', '🌍']);
  });

  test('size and identity', async () => {
    expect(gpt2.size).toBe(50257);
    expect(gpt2.kind).toBe('gpt2');
    expect(Object.isFrozen(gpt2)).toBe(true);
    expect(await createGpt2Tokenizer()).toBe(gpt2);  // one vocabulary per page or worker
  });
});

describe('round trips', () => {
  const check = (s) => {
    const enc = gpt2.encode(s), pieces = gpt2.pieces(s);
    expect(gpt2.decode(enc), JSON.stringify(s)).toBe(s);
    expect(pieces.join(''), JSON.stringify(s)).toBe(s);
    expect(pieces.length).toBe(enc.length);
    for (const id of enc) expect(id >= 0 && id < gpt2.size).toBe(true);
  };

  test.each([
    ['emoji, ZWJ sequences, flags, skin tones', '🙂 👩‍👩‍👧‍👦 🇪🇸🇰🇷 👍🏽 🫠'],
    ['combining marks (decomposed é, Zalgo)', 'e\u0301 a\u0308\u0323 Z\u0351\u0352\u0353\u0354o'],
    ['CJK', '我非常渴望与人工智能一起工作 こんにちは 안녕하세요'],
    ['right-to-left (Hebrew, Arabic, marks)', 'שלום עולם مرحبا بالعالم \u200f\u202bאבג\u202c'],
    ['control characters', Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f\u0085\u2028\u2029'],
    ['BOM, zero widths, non-characters, the last code point', '\ufeffa\u200b\u200c\u200d\ufffe\uffff\u{10ffff}\u{e0001}'],
    ['whitespace runs', ' \t\t  a  \n\n\r\n   b   \u00a0\u3000'],
    ['the special token inside text', 'end.<|endoftext|>Start<|endoftext|><|endoftext|>'],
    ['almost the special token', '<|endoftext| <|endoftext |endoftext|> <|ENDOFTEXT|>'],
    ['contractions', "I'll you've she'd 'S 'T don't"],
  ])('%s', (_, s) => check(s));

  test('seeded random strings over all of Unicode (surrogates excluded) and over a GPT-2-ish alphabet', () => {
    const rand = seededRandom(21);
    const u = () => (rand() + 1) / 2;  // [0, 1)
    const codePoint = () => {
      const plane = u();
      const cp = plane < 0.5 ? Math.floor(u() * 0x80) : plane < 0.8 ? Math.floor(u() * 0x10000) : 0x10000 + Math.floor(u() * 0x100000);
      return cp >= 0xd800 && cp <= 0xdfff ? 0x20 : cp;
    };
    const bits = ['<|endoftext|>', ' ', '  ', '\n', '\ufeff', "'s", ' the', 'Hello', 'é', '👋', '猫', '0', '123', '.', ','];
    let n = 0;
    for (let i = 0; i < 400; i++) {
      const length = Math.floor(u() * 40);
      let s = '';
      for (let j = 0; j < length; j++) s += u() < 0.2 ? bits[Math.floor(u() * bits.length)] : String.fromCodePoint(codePoint());
      check(s);
      n += s.length;
    }
    expect(n).toBeGreaterThan(400 * 15);
  });

  test('a lone surrogate is encoded as U+FFFD (as TextEncoder does): the only strings that do not round-trip', () => {
    expect(gpt2.decode(gpt2.encode('a\ud800b'))).toBe('a\uFFFDb');
    expect(gpt2.pieces('a\udfff').join('')).toBe('a\uFFFD');
  });
});

describe("'<|endoftext|>'", () => {
  test('the text <|endoftext|> is id 50256 wherever it is (as Hugging Face\'s GPT2Tokenizer)', () => {
    expect(ids('<|endoftext|>')).toEqual([50256]);
    expect(ids('a<|endoftext|>b')).toEqual([64, 50256, 65]);
    expect(ids('Hello<|endoftext|> world')).toEqual([15496, 50256, 995]);
    expect(ids('<|endoftext|><|endoftext|>')).toEqual([50256, 50256]);
    expect(gpt2.pieces('a<|endoftext|>b')).toEqual(['a', '<|endoftext|>', 'b']);
    expect(gpt2.decode([15496, 50256, 995])).toBe('Hello<|endoftext|> world');
  });
  test('anything short of it is plain text', () => {
    expect(ids('<|endoftext|')).not.toContain(50256);
    expect(ids('<|endoftext|')).toEqual(ids('<|') .concat(ids('endoftext|')));
  });
});

describe('decode', () => {
  test('an incomplete character decodes as U+FFFD and does not leak into the next call', () => {
    const [a, b] = ids('🙂');
    expect(ids('🙂')).toHaveLength(2);
    expect(gpt2.decode([a])).toBe('\uFFFD');
    expect(gpt2.decode([64])).toBe('a');  // nothing left over from the call before
    expect(gpt2.decode([a, b])).toBe('🙂');
    expect(gpt2.decode(Int32Array.of(b, a, 64))).toMatch(/^\uFFFD+a$/);
  });
});

describe('bad input', () => {
  test.each([
    [() => gpt2.encode(42), 'gpt2Tokenizer.encode: s is a number, expected a string'],
    [() => gpt2.encode(), 'gpt2Tokenizer.encode: s is missing, expected a string'],
    [() => gpt2.pieces(null), 'gpt2Tokenizer.pieces: s is null, expected a string'],
    [() => gpt2.decode('15496'), 'gpt2Tokenizer.decode: ids is string, expected an array of token ids'],
    [() => gpt2.decode([15496, 50257]), 'gpt2Tokenizer.decode: ids[1] is 50257, expected an integer in [0, size = 50257)'],
    [() => gpt2.decode([1.5]), 'gpt2Tokenizer.decode: ids[0] is 1.5, expected an integer in [0, size = 50257)'],
    [() => gpt2.token(-1), 'gpt2Tokenizer.token: ids[0] is -1, expected an integer in [0, size = 50257)'],
    [() => gpt2.token('0'), 'gpt2Tokenizer.token: ids[0] is "0", expected an integer in [0, size = 50257)'],
  ])('%#: %s', (call, message) => {
    expect(call).toThrow(AttnLabError);
    expect(call).toThrow(message);
  });
});

// ---- The vocabulary is only behind the dynamic import -------------------------------------------------
// Walks the static imports (import … from, import '…', export … from) from web/api/index.js; dynamic
// import('…') edges are collected but not followed.
function importGraph(entry) {
  const seen = new Set(), bare = new Set(), dynamic = [];
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    // Statements start a line; a specifier has no newline (a vocabulary string such as "import" is no import).
    const statics = [...text.matchAll(/^\s*(?:import|export)\s[^;'"()]*?\bfrom\s*['"]([^'"\n]+)['"]/gm), ...text.matchAll(/^\s*import\s*['"]([^'"\n]+)['"]/gm)];
    for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) dynamic.push([relative(ROOT, file), m[1]]);
    for (const [, spec] of statics) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else bare.add(spec);
    }
  };
  visit(entry);
  return { files: [...seen].map((f) => relative(ROOT, f)), bare: [...bare], dynamic };
}

describe('the import graph', () => {
  test('web/api/index.js reaches gpt2-tokenizer.js statically, and gpt-tokenizer only through import()', () => {
    const { files, bare, dynamic } = importGraph(join(ROOT, 'web/api/index.js'));
    expect(files).toContain('web/api/gpt2-tokenizer.js');  // the walk reads the real files
    expect(files).toContain('web/api/tokenizer.js');
    expect(files.filter((f) => f.includes('gpt-tokenizer') || f.includes('node_modules'))).toEqual([]);
    expect(bare.filter((s) => s.startsWith('gpt-tokenizer'))).toEqual([]);
    expect(dynamic.filter(([, spec]) => spec.startsWith('gpt-tokenizer')).sort()).toEqual([
      ['web/api/gpt2-tokenizer.js', 'gpt-tokenizer/bpeRanks/r50k_base'],
      ['web/api/gpt2-tokenizer.js', 'gpt-tokenizer/encoding/r50k_base'],
    ]);
  });
  test('the walk sees a static import when there is one', () => {
    const { bare } = importGraph(join(PACKAGE_DIR, 'esm/encoding/r50k_base.js'));
    expect(bare).toEqual([]);  // the package imports only itself (no dependencies)…
    const { files } = importGraph(join(PACKAGE_DIR, 'esm/encoding/r50k_base.js'));
    expect(files.map((f) => f.split('/esm/')[1])).toContain('bpeRanks/r50k_base.js');  // …and the vocabulary, statically
  });
  test('the vocabulary is in the dynamically imported module, not in web/api', () => {
    // ' SolidGoldMagikarp' (id 43453) appears once in the package's r50k_base table, nowhere in web/api.
    expect(readFileSync(join(PACKAGE_DIR, 'esm/bpeRanks/r50k_base.js'), 'utf8')).toContain('" SolidGoldMagikarp"');
    const { files } = importGraph(join(ROOT, 'web/api/index.js'));
    for (const f of files) expect(readFileSync(join(ROOT, f), 'utf8'), f).not.toContain('SolidGoldMagikarp');
  });
});
