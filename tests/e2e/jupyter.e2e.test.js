// attnlab in Jupyter, for real: the Python package installed offline into a fresh virtual environment
// (`pip install --no-index ./python`, Debian's torch/numpy/notebook/nbconvert seen through
// --system-site-packages), then
//   1. `nbconvert --execute` of the companion notebook (notebooks/attention-step-by-step.ipynb) passes;
//   2. its HTML, opened as a file in Chromium, draws every widget with the notebook's numbers, offline;
//   3. a Jupyter Notebook server started here (127.0.0.1, token auth, a temporary directory): Chromium
//      opens a notebook and runs a cell calling attnlab.attention(q, k, v) on torch tensors; the widget
//      shows the weights that torch printed in the same cell.
// The standalone build comes from `npm run build` (standalone/) or $ATTNLAB_STANDALONE.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const NOTEBOOK = join(REPO, 'notebooks/attention-step-by-step.ipynb');
const TOL = { rel: 1e-4, abs: 1e-6 };  // attnlab.TOLERANCE (python/attnlab/__init__.py)

let tmp, venvPython, env, browser;

/** Runs a command to its end; rejects with its output if it fails. */
function run(cmd, args, opts = {}) {
  return new Promise((ok, fail) => {
    const p = spawn(cmd, args, { env, ...opts });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    p.on('error', fail);
    p.on('close', (code) => (code === 0 ? ok(out) : fail(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out.slice(-4000)}`))));
  });
}

function expectClose(got, want, what) {
  expect(got.length, `${what}: length`).toBe(want.length);
  const bad = want.map((w, i) => [i, got[i], w]).filter(([, g, w]) => !(Math.abs(g - w) <= TOL.abs + TOL.rel * Math.abs(w)));
  expect(bad, `${what}: [index, widget, notebook] outside ${TOL.abs} + ${TOL.rel}|x|`).toEqual([]);
}

/** A page that records every request leaving `allowed` protocols/hosts and every uncaught error. */
async function page(allowed) {
  const p = await browser.context.newPage();
  const problems = [];
  p.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  p.on('request', (r) => { if (!allowed(new URL(r.url()))) problems.push(`request: ${r.url()}`); });
  return { p, problems };
}

/** Every attnlab output on the page once drawn: its data, check line and the maps' numbers. */
function readOutputs(p) {
  return p.evaluate(() => [...document.querySelectorAll('.attnlab-output')].map((root) => {
    const maps = {};
    for (const h of root.querySelectorAll('attn-heatmap')) maps[h.className] = Array.from(h.values);
    const check = root.querySelector('.attnlab-check');
    return { id: root.id, ready: root.dataset.ready, data: JSON.parse(document.getElementById(`${root.id}-data`).textContent),
      equal: check?.dataset.equal, check: check?.textContent, maps, positional: !!root.querySelector('attn-positional'),
      error: root.querySelector('.attnlab-error')?.textContent ?? null };
  }));
}

const allDrawn = () => [...document.querySelectorAll('.attnlab-output')].every((e) => e.dataset.ready);

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnlab-jupyter-'));
  // Jupyter and IPython write their config, runtime and history here, not in the user's home.
  env = { ...process.env, JUPYTER_CONFIG_DIR: join(tmp, 'config'), JUPYTER_DATA_DIR: join(tmp, 'data'),
    JUPYTER_RUNTIME_DIR: join(tmp, 'runtime'), IPYTHONDIR: join(tmp, 'ipython'), PYDEVD_DISABLE_FILE_VALIDATION: '1' };
  delete env.PYTHONPATH;
  await run('/usr/bin/python3', ['-m', 'venv', '--system-site-packages', join(tmp, 'venv')]);
  venvPython = join(tmp, 'venv/bin/python');
  // --no-index: nothing may come from a package index (the build backend is the standard library).
  await run(venvPython, ['-m', 'pip', 'install', '--no-index', '--no-deps', '--quiet', join(REPO, 'python')]);
  // The kernel runs this environment's python (Debian's kernel spec names /usr/bin/python3).
  await run(venvPython, ['-m', 'ipykernel', 'install', '--sys-prefix', '--name', 'python3']);
  browser = await launch();
}, 300000);

afterAll(async () => {
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the companion notebook', () => {
  let html;

  it('runs headless: nbconvert --execute with Debian\'s torch', async () => {
    const dir = join(tmp, 'nbconvert');
    mkdirSync(dir);
    copyFileSync(NOTEBOOK, join(dir, 'notebook.ipynb'));
    await run(venvPython, ['-m', 'nbconvert', '--to', 'html', '--execute', '--ExecutePreprocessor.timeout=600',
      '--output-dir', dir, join(dir, 'notebook.ipynb')], { cwd: dir });
    html = join(dir, 'notebook.html');
    expect(existsSync(html)).toBe(true);
  }, 600000);

  it('its HTML, opened as a file, draws every widget with the notebook\'s numbers, fetching nothing', async () => {
    expect(html, 'the nbconvert test ran').toBeTruthy();
    // The notebook's cells that end in an attnlab call: one widget each.
    const cells = JSON.parse(readFileSync(NOTEBOOK, 'utf8')).cells.filter((c) => c.cell_type === 'code');
    const calls = cells.filter((c) => /^attnlab\.\w+\(/m.test([].concat(c.source).join(''))).length;
    expect(calls).toBeGreaterThanOrEqual(6);
    // file: pages (nbconvert's own template loads require.js and MathJax from Debian's /usr/share/javascript),
    // data: and blob: only: no network at all.
    const { p, problems } = await page((u) => ['file:', 'data:', 'blob:'].includes(u.protocol));
    // At the moment an output says data-ready="true": are its maps drawn and its formulas typeset?
    await p.addInitScript(() => {
      window.readyState = {};
      new MutationObserver((records) => {
        for (const r of records) {
          const root = r.target;
          if (r.attributeName !== 'data-ready' || root.dataset.ready !== 'true') continue;
          const maps = [...root.querySelectorAll('attn-heatmap')], texs = [...root.querySelectorAll('attn-tex')];
          window.readyState[root.id] = { maps: maps.length, mapsDrawn: maps.filter((h) => h.shadowRoot?.querySelector('svg')).length,
            texs: texs.length, texsTypeset: texs.filter((t) => t.shadowRoot?.querySelector('.katex')).length };
        }
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
    });
    await p.goto(`file://${html}`);
    await p.waitForFunction(allDrawn, null, { timeout: 90000 });
    const outputs = await readOutputs(p);
    const atReady = await p.evaluate(() => window.readyState);
    for (const o of outputs) {
      const r = atReady[o.id];
      expect(r, `${o.id}: data-ready seen`).toBeTruthy();
      expect(r.mapsDrawn, `${o.id}: maps drawn when ready`).toBe(r.maps);
      expect(r.texsTypeset, `${o.id}: formulas typeset when ready`).toBe(r.texs);
    }
    expect(Object.values(atReady).some((r) => r.texs > 0), 'some output has a formula').toBe(true);
    expect(outputs.length).toBe(calls);
    const kinds = outputs.map((o) => o.data.kind);
    expect(kinds.filter((k) => k === 'attention').length).toBe(3);
    expect(kinds.filter((k) => k === 'heads').length).toBe(2);
    expect(kinds).toContain('positional');
    for (const o of outputs) {
      expect(o.error, o.id).toBeNull();
      expect(o.ready, o.id).toBe('true');
      expect(o.equal, `${o.id}: ${o.check}`).toBe('true');
      const d = o.data;
      if (d.kind === 'attention') {
        // The module's own tensors are drawn, and the core's weights and output are the module's.
        expect(o.maps.q).toEqual(Array.from(Float32Array.from(d.q)));
        expect(o.maps.v).toEqual(Array.from(Float32Array.from(d.v)));
        expectClose(o.maps.weights, d.reference.weights, `${d.title}: weights`);
        expectClose(o.maps.output, d.reference.output, `${d.title}: output`);
        for (let i = 0; i < d.tq; i++)  // rows are distributions
          expect(Math.abs(o.maps.weights.slice(i * d.tk, (i + 1) * d.tk).reduce((a, b) => a + b) - 1)).toBeLessThan(1e-6);
      } else if (d.kind === 'heads') {
        const n = d.tq * d.tk;
        for (let h = 0; h < d.heads; h++) expectClose(o.maps[`weights head-${h}`], d.weights.slice(h * n, (h + 1) * n), `${d.title}: head ${h}`);
      } else {
        expect(o.positional).toBe(true);
      }
    }
    // The lecture's 4-token sentence labels every map.
    expect(outputs[0].data.tokens).toEqual(['the', 'cat', 'sat', 'down']);
    expect(problems).toEqual([]);
    await p.close();
  }, 180000);
});

describe('a Jupyter Notebook server (127.0.0.1, token auth)', () => {
  let server, port, token, dir;

  beforeAll(async () => {
    dir = join(tmp, 'server');
    mkdirSync(dir);
    token = randomBytes(16).toString('hex');
    port = await new Promise((ok) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => ok(p)); }); });
    const cell = [
      'import json, math, torch, attnlab',
      'g = torch.Generator().manual_seed(11)',
      'q, k, v = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g), torch.randn(4, 2, generator=g)',
      'print(json.dumps(torch.softmax(q @ k.T / math.sqrt(3), dim=-1).flatten().tolist()))',
      'display(attnlab.show("attn-steps", preset="football", stage=3))',
      'attnlab.attention(q, k, v, tokens=["a", "b", "c", "d"])',
    ].join('\n');
    writeFileSync(join(dir, 'live.ipynb'), JSON.stringify({
      nbformat: 4, nbformat_minor: 5, metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
      cells: [{ cell_type: 'code', id: 'live-cell', metadata: {}, execution_count: null, outputs: [], source: cell }],
    }));
    server = spawn(venvPython, ['-m', 'notebook', '--no-browser', '--ip=127.0.0.1', `--port=${port}`, '--port-retries=0',
      `--NotebookApp.token=${token}`, `--notebook-dir=${dir}`,
      // CI machines run as root; Jupyter refuses that unless told (it is still bound to 127.0.0.1 with a token)
      ...(process.getuid?.() === 0 ? ['--allow-root'] : [])], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    server.stdout.on('data', (d) => { log += d; });
    server.stderr.on('data', (d) => { log += d; });
    // Ready when the API answers with the token.
    for (let i = 0; ; i++) {
      const r = await fetch(`http://127.0.0.1:${port}/api/status?token=${token}`).catch(() => null);
      if (r?.ok) break;
      if (server.exitCode !== null || i > 600) throw new Error(`the notebook server did not start:\n${log}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }, 120000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((ok) => server.on('exit', ok));
      server.kill('SIGTERM');  // the server shuts its kernels down on SIGTERM
      await exited;
    }
  });

  it('refuses a request without the token', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/api/contents`);
    expect(r.status).toBe(403);
    const withToken = await fetch(`http://127.0.0.1:${port}/api/contents?token=${token}`);
    expect(withToken.status).toBe(200);
  });

  it('runs a cell calling attnlab.attention on torch tensors: the widget shows the tensors\' weights', async () => {
    const { p, problems } = await page((u) => ['data:', 'blob:'].includes(u.protocol) || (u.hostname === '127.0.0.1' && u.port === String(port)));
    await p.goto(`http://127.0.0.1:${port}/notebooks/live.ipynb?token=${token}`);
    await p.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 60000 });
    await p.click('.cell .CodeMirror');
    await p.keyboard.press('Shift+Enter');
    await p.waitForFunction(() => document.querySelectorAll('.output_area .attnlab-output[data-ready]').length === 2, null, { timeout: 90000 });
    const printed = JSON.parse((await p.textContent('.output_area .output_stdout')).trim());
    const outputs = await readOutputs(p);
    expect(outputs.map((o) => o.data.kind)).toEqual(['show', 'attention']);
    // attnlab.show("attn-steps", preset="football", stage=3): the widget, up to its stage 3 (scaled = scores / √d_k).
    // The widget draws its stages in parts, one frame apart, once it is near the viewport (lazy.js):
    // the output being mounted does not mean the scores are drawn yet.
    await p.waitForFunction(() => document.querySelector('.attnlab-output attn-steps')?.shadowRoot
      ?.querySelector('attn-heatmap.scaled')?.values?.length === 9, null, { timeout: 30000 });
    const steps = await p.evaluate(async () => {
      const w = document.querySelector('.attnlab-output attn-steps');
      await w.updateComplete;
      const map = (c) => Array.from(w.shadowRoot.querySelector(`attn-heatmap.${c}`)?.values ?? []);
      return { stage: w.getAttribute('stage'), preset: w.getAttribute('preset'), scores: map('scores'), scaled: map('scaled'),
        s4: !!w.shadowRoot.querySelector('.stage.s4') };
    });
    expect([steps.stage, steps.preset, steps.s4]).toEqual(['3', 'football', false]);
    expect(steps.scores).toHaveLength(9);
    expectClose(steps.scaled, steps.scores.map((x) => x / Math.sqrt(2)), 'attn-steps: scaled = scores / √2');
    const o = outputs[1];
    expect(o.error).toBeNull();
    expect(o.ready).toBe('true');
    expect(o.equal, o.check).toBe('true');
    expect(o.data.reference.source).toBe('PyTorch (float32)');
    expect(printed).toHaveLength(16);
    expectClose(o.maps.weights, printed, 'the widget\'s weights against the weights torch printed');
    const labels = await p.evaluate(() => document.querySelector('.attnlab-output attn-heatmap.weights').rowLabels);
    expect(labels).toEqual(['a', 'b', 'c', 'd']);
    expect(problems).toEqual([]);
    await p.close();
  }, 180000);
});
