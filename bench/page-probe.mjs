// page-probe.mjs — in-page helpers the browser benchmarks (page-load.mjs, long-tasks.mjs) inject before
// the app's scripts. The functions run in the page, not in Node: PROBE_HELPERS is their source, declared
// as page globals that each benchmark's own probe() calls.

/** Visits every element under `root`, through shadow roots; `visit` returning false stops the walk. */
function deep(root, visit) {
  for (const el of root.querySelectorAll('*')) {
    if (visit(el) === false) return false;
    if (el.shadowRoot && deep(el.shadowRoot, visit) === false) return false;
  }
  return true;
}

/** True when widget `host` is drawn (no loading placeholder) and shows a digit somewhere in its text. */
function shows(host) {
  const root = host.shadowRoot;
  if (!root?.querySelector('.wrap') || root.querySelector('.loading, [data-lazy-placeholder]')) return false;
  let digits = false;
  deep(root, (el) => {
    for (const n of el.childNodes) if (n.nodeType === 3 && /\d/.test(n.data)) { digits = true; return false; }
    return true;
  });
  return digits;
}

export const PROBE_HELPERS = `${deep}\n${shows}\n`;
