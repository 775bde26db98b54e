// Helpers for tests/e2e/third-party-decks.e2e.test.js: pack attnlab, write a small third-party Slidev
// deck and a small reveal.js deck (templates in ./slidev/ and ./reveal/) into a folder outside the
// repository, install, build, run a dev server.
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../../..');
const ours = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));

// Quiet, offline-friendly npm: the cache from our own `npm ci` serves almost everything.
const ENV = {
  ...process.env,
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
};

/** Runs a command; resolves with its output and time (ms), rejects with the output on failure. */
export function run(cmd, args, cwd, { timeout = 240000 } = {}) {
  const started = Date.now();
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} }, timeout);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) ok({ out, ms: Date.now() - started });
      else fail(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed: ${signal ?? `exit ${code}`}\n${out.slice(-4000)}`));
    });
  });
}

/** `npm pack` of this repository into `dir`; returns the tarball's path and its file list. */
export async function packAttnlab(dir) {
  const { out } = await run('npm', ['pack', '--json', '--pack-destination', dir], REPO);
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  return { tarball: join(dir, info.filename), files: info.files.map((f) => f.path) };
}

/** A third-party Slidev deck in `dir`: its own package.json (Slidev pinned and npm overrides as ours). */
export function writeSlidevDeck(dir, attnlab) {
  cpSync(join(import.meta.dirname, 'slidev'), dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'a-third-party-slidev-deck',
    private: true,
    type: 'module',
    scripts: { dev: 'slidev', build: 'slidev build' },
    dependencies: {
      '@slidev/cli': ours.devDependencies['@slidev/cli'],
      '@slidev/theme-default': ours.devDependencies['@slidev/theme-default'],
      attnlab,
    },
    overrides: ours.overrides,
  }, null, 2));
}

/** A third-party reveal.js deck in `dir`, built with Vite. */
export function writeRevealDeck(dir, attnlab) {
  cpSync(join(import.meta.dirname, 'reveal'), dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'a-third-party-reveal-deck',
    private: true,
    type: 'module',
    scripts: { dev: 'vite', build: 'vite build' },
    dependencies: { 'reveal.js': ours.devDependencies['reveal.js'], vite: ours.devDependencies.vite, attnlab },
  }, null, 2));
}

/** A lecturer's own reveal.js markdown deck in `dir` (template ./reveal-markdown/: white theme, the
 *  markdown plugin, `---` separators, the README's attention slide). */
export function writeRevealMarkdownDeck(dir, attnlab) {
  cpSync(join(import.meta.dirname, 'reveal-markdown'), dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'a-lecturers-reveal-markdown-deck',
    private: true,
    type: 'module',
    scripts: { dev: 'vite', build: 'vite build' },
    dependencies: { 'reveal.js': ours.devDependencies['reveal.js'], vite: ours.devDependencies.vite, attnlab },
  }, null, 2));
}

export const npmInstall = (dir, ...pkgs) =>
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...pkgs], dir);

export function freePort() {
  return new Promise((ok) => {
    const s = createServer().listen(0, 'localhost', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** Starts a dev server; resolves once `url` answers 200. `stop()` ends it and its children. */
export async function startServer(cmd, args, cwd, url, { timeout = 90000 } = {}) {
  const child = spawn(cmd, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  let exited = null;
  child.on('exit', (code) => { exited = code; });
  const stop = () => { try { process.kill(-child.pid, 'SIGTERM'); } catch {} };
  const until = Date.now() + timeout;
  for (;;) {
    if (exited !== null) throw new Error(`${cmd} ${args.join(' ')} exited (${exited}):\n${out.slice(-4000)}`);
    if (Date.now() > until) { stop(); throw new Error(`${url} did not answer in ${timeout} ms:\n${out.slice(-4000)}`); }
    const status = await fetch(url).then((r) => r.status, () => 0);
    if (status === 200) return { stop, output: () => out };
    await new Promise((r) => setTimeout(r, 300));
  }
}
