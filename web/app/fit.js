// fit.html: one widget in a box of a given size, as a slide would hold it.
import '../widgets/index.js';
import '../../slides/shared/widgets.js';

const params = new URLSearchParams(location.search);
const box = document.getElementById('box');
box.style.width = `${Number(params.get('w')) || 980}px`;
box.style.height = `${Number(params.get('h')) || 552}px`;
if (params.get('title')) {
  const h = document.createElement('h2');
  h.textContent = params.get('title');
  box.append(h);
}
const el = document.createElement(params.get('tag') || 'attn-steps');
for (const [k, v] of params) if (!['tag', 'w', 'h', 'title'].includes(k)) el.setAttribute(k, v);
box.append(el);
