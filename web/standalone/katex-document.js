// KaTeX's stylesheet at document level: its @font-face rules do not work inside the widgets' shadow
// roots. One <link> in <head> (once, even if the script is loaded twice); the stylesheet and its woff2
// fonts are files beside the script.
import katexCssUrl from 'katex/dist/katex.min.css?url';

if (typeof document !== 'undefined' && !document.querySelector('[data-attnlab-katex]')) {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL(katexCssUrl, import.meta.url).href;
  link.dataset.attnlabKatex = '';
  document.head.append(link);
}
