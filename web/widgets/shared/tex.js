// <attn-tex expr="…" display>: a formula typeset by the bundled KaTeX (fonts and CSS come with the
// build; nothing from a CDN). The expression is the widget's own LaTeX, never user text.
import { LitElement, html, css, unsafeCSS } from 'lit';
import katex from 'katex';
import 'katex/dist/katex.min.css';  // document level: @font-face does not work inside a shadow root
import katexCss from 'katex/dist/katex.min.css?inline';

export class AttnTex extends LitElement {
  static properties = {
    /** LaTeX source. */
    expr: { type: String },
    /** Display (block) style instead of inline. */
    display: { type: Boolean },
  };

  static styles = [unsafeCSS(katexCss), css`:host { display: block; max-width: 100%; overflow-x: auto; } :host([inline]) { display: inline-block; } .katex { font-size: 1.15em; }`];

  render() {
    return html`<span class="tex"></span>`;
  }

  updated() {
    katex.render(this.expr ?? '', this.renderRoot.querySelector('.tex'), { displayMode: !!this.display, throwOnError: false, output: 'htmlAndMathml' });
  }
}

if (!customElements.get('attn-tex')) customElements.define('attn-tex', AttnTex);
