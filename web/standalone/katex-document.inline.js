// The inline build's katex-document.js: KaTeX's stylesheet, its woff2 fonts inlined (data: URLs), as a
// <style> in <head> (once, even if the script is loaded twice).
import katexCss from 'katex/dist/katex.min.css?inline&document';

if (typeof document !== 'undefined' && !document.querySelector('[data-attnlab-katex]')) {
  const style = document.createElement('style');
  style.textContent = katexCss;
  style.dataset.attnlabKatex = '';
  document.head.append(style);
}
