// attnlab's notebook glue: every cell output of attnlab.show / attention / heads / positional carries this
// script, its data (JSON) and the standalone build (attnlab.js, the .wasm, KaTeX's stylesheet: gzip +
// base64). The first output on a page inflates the build and imports it once (a Blob URL); every output
// then draws its view and recomputes the notebook's numbers with attnlab's core.
//
// attnlab.js finds its files relative to its own URL (import.meta.url), which a Blob URL does not have:
// the text is imported with import.meta.url replaced by a base under the reserved `.invalid` domain, and
// a fetch of that base's .wasm is answered with the carried bytes; its lazily imported chunks (KaTeX) are
// carried and imported from Blob URLs too. Nothing else is fetched: the training worker, the snapshots and
// the GPT-2 vocabulary are not carried (no widget attnlab.show draws needs them).
// A classic script (not a module): Jupyter Notebook inserts outputs with jQuery, JupyterLab by re-creating
// the script elements; both run classic scripts, and `import()` works from one.
var attnlabNotebook = window.attnlabNotebook || (function () {
  'use strict';
  var BASE = 'https://attnlab.invalid/notebook/';
  var loading = null;

  function bytesOf(b64) {
    var s = atob(b64), out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  async function inflate(b64) {
    var stream = new Blob([bytesOf(b64)]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  function load(libEl) {
    if (loading) return loading;
    loading = (async function () {
      if (typeof DecompressionStream !== 'function')
        throw new Error('this browser has no DecompressionStream (attnlab needs Chrome 80+, Firefox 113+ or Safari 16.4+)');
      var parts = await Promise.all([inflate(libEl.dataset.js), inflate(libEl.dataset.wasm), inflate(libEl.dataset.css)]);
      var js = new TextDecoder().decode(parts[0]), wasm = parts[1], css = new TextDecoder().decode(parts[2]);
      // KaTeX's stylesheet (its main fonts inlined) before the module runs: the module then adds no <link>.
      if (!document.querySelector('[data-attnlab-katex]')) {
        var style = document.createElement('style');
        style.dataset.attnlabKatex = '';
        style.textContent = css;
        document.head.append(style);
      }
      var realFetch = window.fetch;
      window.fetch = function (input, init) {
        var url = typeof input === 'string' ? input : input instanceof URL ? input.href : input && input.url;
        if (typeof url === 'string' && url.indexOf(BASE) === 0) {
          if (/\.wasm$/.test(url)) return Promise.resolve(new Response(wasm.slice(), { headers: { 'Content-Type': 'application/wasm' } }));
          return Promise.reject(new TypeError('attnlab (notebook): ' + url.slice(BASE.length) + ' is not carried by the notebook output'));
        }
        return realFetch.apply(this, arguments);
      };
      // The lazily imported chunks it carries (KaTeX) become Blob URLs too, named in place of their paths.
      var chunks = JSON.parse(libEl.dataset.chunks || '{}'), text = js;
      for (var path in chunks) {
        var code = new TextDecoder().decode(await inflate(chunks[path])).split('import.meta.url').join(JSON.stringify(BASE + path.slice(2)));
        text = text.split('`' + path + '`').join(JSON.stringify(URL.createObjectURL(new Blob([code], { type: 'text/javascript' }))));
      }
      text = text.split('import.meta.url').join(JSON.stringify(BASE + 'attnlab.js'));
      var url = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
      var mod = await import(url);
      if (!mod.supportsWasmSimd()) throw new Error('this browser runs WebAssembly without SIMD, which attnlab needs');
      var lab = await mod.createAttnLab({ wasmBinary: wasm.slice() });
      return { mod: mod, lab: lab };
    })();
    return loading;
  }

  // ---- comparisons: |a - b| <= abs + rel |b| (float32 against the notebook's own numbers) ----
  function compare(name, got, want, tol, cols, rowLabels, colLabels) {
    var worst = -1, maxDiff = 0, bad = 0;
    for (var i = 0; i < want.length; i++) {
      var d = Math.abs(got[i] - want[i]);
      if (!(d <= tol.abs + tol.rel * Math.abs(want[i]))) bad++;
      if (d > maxDiff || worst < 0) { maxDiff = d; worst = i; }
    }
    var r = Math.floor(worst / cols), c = worst % cols;
    return { name: name, equal: bad === 0 && got.length === want.length, maxDiff: maxDiff, bad: bad, count: want.length,
      where: name + '[' + (rowLabels ? rowLabels[r] : r) + ', ' + (colLabels ? colLabels[c] : c) + ']', got: got[worst], want: want[worst] };
  }
  function checkLine(results, source, tol) {
    var equal = results.every(function (r) { return r.equal; });
    var p = el('p', 'attnlab-check ' + (equal ? 'equal' : 'differ'));
    p.dataset.equal = String(equal);
    p.setAttribute('role', equal ? 'status' : 'alert');
    p.style.cssText = 'font:14px system-ui,sans-serif;padding:6px 10px;border-radius:6px;margin:6px 0;' +
      (equal ? 'background:#dafbe1;color:#116329' : 'background:#ffebe9;color:#82071e;font-weight:600');
    var parts = results.map(function (r) {
      p.dataset[r.name.replace(/\W/g, '') + 'MaxDiff'] = String(r.maxDiff);
      return r.name + ': max |Δ| ' + r.maxDiff.toExponential(1) + (r.equal ? '' : ' (' + r.bad + ' of ' + r.count +
        ' differ; worst ' + r.where + ': attnlab ' + r.got.toFixed(6) + ', notebook ' + r.want.toFixed(6) + ')');
    });
    p.textContent = (equal ? '✓ attnlab’s core (WebAssembly, float32) gives the notebook’s numbers' :
      '✗ attnlab’s core and the notebook DIFFER') + ' — against ' + source + '; ' + parts.join('; ') +
      ' (tolerance ' + tol.abs + ' + ' + tol.rel + '·|x|).';
    return p;
  }

  // ---- DOM helpers ----
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function heatmap(cls, label, values, rows, cols, rowLabels, colLabels, opts) {
    opts = opts || {};
    var h = document.createElement('attn-heatmap');
    h.className = cls;
    Object.assign(h, { label: label, values: Float32Array.from(values), rows: rows, cols: cols, rowLabels: rowLabels,
      colLabels: colLabels, colormap: opts.colormap || 'diverging', digits: rows * cols <= 64 ? 3 : 2,
      cellSize: Math.max(22, Math.min(54, Math.floor(440 / Math.max(rows, cols)))) });
    if (opts.probability) { h.vmin = 0; h.vmax = 1; }
    if (opts.range) { h.vmin = opts.range[0]; h.vmax = opts.range[1]; }
    return h;
  }
  function row() {
    var r = el('div', 'attnlab-row');
    r.style.cssText = 'display:flex;flex-wrap:wrap;gap:12px 20px;align-items:flex-start;margin:6px 0';
    for (var i = 0; i < arguments.length; i++) r.append(arguments[i]);
    return r;
  }
  function tex(expr) {
    var t = document.createElement('attn-tex');
    t.expr = expr;
    t.setAttribute('display', '');
    return t;
  }
  function dims(n, prefix) { return Array.from({ length: n }, function (_, j) { return (prefix || 'd') + j; }); }
  function maskArg(m, tq, tk) {
    if (m === 'none' || m === 'causal') return m;
    return Float32Array.from(m, function (x) { return x === null ? -Infinity : x; });
  }
  function caption(d, what) {
    var h = el('div', 'attnlab-caption');
    h.style.cssText = 'font:600 15px system-ui,sans-serif;margin:4px 0';
    h.textContent = (d.title ? d.title + ' — ' : '') + what + (d.where ? ' (' + d.where + ')' : '');
    return h;
  }

  // ---- the views ----
  var views = {
    show: function (d, root) {
      var w = document.createElement(d.tag);
      for (var name in d.attributes) w.setAttribute(name, d.attributes[name]);
      root.append(w);
    },

    attention: function (d, root, lab) {
      var args = { q: Float32Array.from(d.q), k: Float32Array.from(d.k), v: Float32Array.from(d.v),
        tq: d.tq, tk: d.tk, dk: d.dk, dv: d.dv, scale: d.scale };
      var plain = lab.attention(args);
      var r = lab.attention(Object.assign({}, args, { mask: maskArg(d.mask, d.tq, d.tk) }));
      var T = d.tokens, K = d.keys, range = 0;
      plain.scores.forEach(function (x) { range = Math.max(range, Math.abs(x)); });
      r.scaled.forEach(function (x) { if (isFinite(x)) range = Math.max(range, Math.abs(x)); });
      var sr = [-(range || 1), range || 1];
      root.append(caption(d, 'attention on the notebook’s q, k, v: tq ' + d.tq + ', tk ' + d.tk + ', dk ' + d.dk + ', dv ' + d.dv +
        (d.mask === 'none' ? '' : ', mask ' + (typeof d.mask === 'string' ? d.mask : 'from the notebook'))));
      root.append(tex('\\mathrm{Attention}(Q,K,V) = \\mathrm{softmax}\\!\\left(QK^\\top \\times ' + d.scale.toPrecision(4) +
        (d.mask === 'none' ? '' : ' + M') + '\\right)V'));
      root.append(row(heatmap('q', 'Q (tq × dk)', d.q, d.tq, d.dk, T, dims(d.dk)), heatmap('k', 'K (tk × dk)', d.k, d.tk, d.dk, K, dims(d.dk)),
        heatmap('v', 'V (tk × dv)', d.v, d.tk, d.dv, K, dims(d.dv))));
      root.append(row(heatmap('scores', 'S = QKᵀ', plain.scores, d.tq, d.tk, T, K, { range: sr }),
        heatmap('scaled', d.mask === 'none' ? 'S × scale' : 'S × scale + M', r.scaled, d.tq, d.tk, T, K, { range: sr })));
      root.append(row(heatmap('weights', 'weights A = softmax (rows)', r.weights, d.tq, d.tk, T, K, { colormap: 'sequential', probability: true }),
        heatmap('output', 'output Z = AV', r.output, d.tq, d.dv, T, dims(d.dv))));
      root.append(checkLine([compare('weights', r.weights, d.reference.weights, d.tolerance, d.tk, T, K),
        compare('output', r.output, d.reference.output, d.tolerance, d.dv, T, null)], d.reference.source, d.tolerance));
    },

    heads: function (d, root, lab) {
      var n = d.tq * d.tk, maps = [], results = [], ones = new Float32Array(d.tk).fill(1);
      root.append(caption(d, d.heads + ' head' + (d.heads > 1 ? 's' : '') + '’ attention weights, tq ' + d.tq + ', tk ' + d.tk));
      for (var h = 0; h < d.heads; h++) {
        var theirs = d.weights.slice(h * n, (h + 1) * n), shown = theirs;
        if (d.q) {
          var dk = d.dk;
          var r = lab.attention({ q: Float32Array.from(d.q.slice(h * d.tq * dk, (h + 1) * d.tq * dk)),
            k: Float32Array.from(d.k.slice(h * d.tk * dk, (h + 1) * d.tk * dk)), v: new Float32Array(d.tk),
            tq: d.tq, tk: d.tk, dk: dk, dv: 1, scale: d.scale, mask: maskArg(d.mask, d.tq, d.tk) });
          shown = r.weights;
          results.push(compare('head ' + h + ' weights', r.weights, theirs, d.tolerance, d.tk, d.tokens, d.keys));
        } else {
          // Each row sums to 1: A·1 computed by the core.
          var sums = lab.weightedSum({ weights: Float32Array.from(theirs), v: ones, tq: d.tq, tk: d.tk, dv: 1 });
          results.push(compare('head ' + h + ' row sums', sums, new Array(d.tq).fill(1), d.tolerance, 1, d.tokens, ['Σ']));
        }
        maps.push(heatmap('weights head-' + h, 'head ' + h + (d.q ? ' (recomputed by attnlab)' : ''), shown, d.tq, d.tk, d.tokens, d.keys,
          { colormap: 'sequential', probability: true }));
      }
      root.append(row.apply(null, maps));
      root.append(checkLine(results, d.q ? d.source + ' vs softmax(q kᵀ × scale' + (d.mask === 'none' ? '' : ' + M') + ') by attnlab' :
        d.source + ' (every row a distribution: Σ_j A_ij = 1)', d.tolerance));
    },

    positional: function (d, root, lab, mod) {
      root.append(caption(d, 'sinusoidal positional encoding, ' + d.length + ' positions, d_model ' + d.dModel + ', base ' + d.base));
      var w = document.createElement('attn-positional');
      w.setAttribute('d-model', String(d.dModel));
      w.setAttribute('length', String(d.length));
      w.setAttribute('base', String(d.base));
      if (d.view) { w.setAttribute('view', d.view); w.setAttribute('layout', 'slide'); w.setAttribute('fit-height', '420'); }
      if (d.pe) {
        var mine = lab.positionalEncoding({ kind: 'sinusoidal', length: d.length, dModel: d.dModel, base: d.base });
        root.append(checkLine([compare('pe', mine, d.pe, d.tolerance, d.dModel, null, null)], d.source, d.tolerance));
      }
      root.append(w);
    },
  };

  // data-ready means drawn, not only built: every attnlab element the view made (maps, formulas, widgets,
  // and the maps inside them) has finished its Lit update, and a frame has been painted. A full widget far
  // below the fold draws when it comes near, as on any page (its placeholder is what is drawn until then).
  async function drawn(root) {
    for (var pass = 0; pass < 4; pass++) {
      var els = [], stack = [root];
      while (stack.length) {
        var node = stack.pop();
        node.querySelectorAll('*').forEach(function (e) {
          if (e.localName.indexOf('attn-') === 0) els.push(e);
          if (e.shadowRoot) stack.push(e.shadowRoot);
        });
      }
      await Promise.all(els.map(function (e) { return customElements.whenDefined(e.localName); }));
      var updates = await Promise.all(els.map(function (e) { return e.updateComplete || true; }));
      if (updates.every(Boolean) && pass > 0) break;
    }
    // Formulas are typeset a few per frame once KaTeX is loaded: wait for this output's (at most ~5 s).
    var texs = els.filter(function (e) { return e.localName === 'attn-tex'; });
    for (var f = 0; f < 300; f++) {
      await new Promise(function (r) { requestAnimationFrame(function () { r(); }); });
      if (texs.every(function (t) { return !t.isConnected || (t.renderRoot && t.renderRoot.querySelector('.katex')); })) break;
    }
  }

  async function mount(id) {
    var root = document.getElementById(id);
    if (!root || root.dataset.mounted) return;
    root.dataset.mounted = 'true';
    root.style.fontFamily = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';
    var data = JSON.parse(document.getElementById(id + '-data').textContent);
    var loadingNote = root.querySelector('.attnlab-loading');
    try {
      var loaded = await load(document.getElementById(id + '-lib'));
      if (loadingNote) loadingNote.remove();
      views[data.kind](data, root, loaded.lab, loaded.mod);
      await drawn(root);
      root.dataset.ready = 'true';
    } catch (e) {
      if (loadingNote) loadingNote.remove();
      var p = el('p', 'attnlab-error', 'attnlab could not draw this output: ' + (e && e.message ? e.message : e));
      p.setAttribute('role', 'alert');
      p.style.cssText = 'font:14px system-ui,sans-serif;color:#82071e;background:#ffebe9;padding:6px 10px;border-radius:6px';
      root.append(p);
      root.dataset.ready = 'error';
    }
  }

  var api = { mount: mount, load: load, compare: compare };
  window.attnlabNotebook = api;
  return api;
})();
