// Writes names.txt from makemore's names.txt (one lowercase name per line), checked: a–z only.
//   git --git-dir=<makemore>/.git show 988aa59:names.txt | node web/train/data/make-names.mjs > web/train/data/names.txt
// Prints the hashes of what it read and wrote to stderr. Provenance and licence: README.md next to this file.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const text = readFileSync(0, 'utf8');
const names = text.split('\n').filter((s) => s.length > 0);
for (const [i, s] of names.entries())
  if (!/^[a-z]+$/.test(s)) throw new Error(`make-names: line ${i + 1} is ${JSON.stringify(s)}, expected only a–z`);
const out = names.join('\n') + '\n';
const sha = (s) => createHash('sha256').update(s).digest('hex');
process.stdout.write(out);
process.stderr.write(`make-names: ${names.length} names; read sha256 ${sha(text)}, wrote sha256 ${sha(out)} (${Buffer.byteLength(out)} bytes)\n`);
