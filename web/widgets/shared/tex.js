// <attn-tex expr="…" display>: a formula typeset by the bundled KaTeX (fonts and CSS come with the
// build; nothing from a CDN). The expression is the widget's own LaTeX, never user text.
// A formula wider than its box is typeset smaller until it fits (on a phone or a slide column),
// never put in a scroll box.
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

  static styles = [unsafeCSS(katexCss), css`:host { display: block; max-width: 100%; overflow: hidden; } :host([inline]) { display: inline-block; } .katex { font-size: 1.15em; }`];

  render() {
    return html`<span class="tex"></span>`;
  }

  updated() {
    katex.render(this.expr ?? '', this.renderRoot.querySelector('.tex'), { displayMode: !!this.display, throwOnError: false, output: 'htmlAndMathml' });
    this.#fit();
  }

  connectedCallback() {
    super.connectedCallback();
    this._ro ??= typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => this.#fit());
    this._ro?.observe(this);
    // KaTeX's fonts may arrive after the first fit: fit again once they have.
    this._onFonts ??= () => this.#fit();
    document.fonts?.addEventListener?.('loadingdone', this._onFonts);
    document.fonts?.ready?.then(this._onFonts);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._ro?.disconnect();
    document.fonts?.removeEventListener?.('loadingdone', this._onFonts);
  }

  /** Shrinks the type (down to 40 %) while the formula is wider than the host. */
  #fit() {
    const tex = this.renderRoot.querySelector('.tex');
    if (!tex) return;
    tex.style.fontSize = '';
    const avail = this.clientWidth;
    if (!avail) return;
    let k = 1;
    for (let i = 0; i < 4 && this.scrollWidth > avail + 0.5; i++) {
      k = Math.max(0.4, k * (avail / this.scrollWidth) * 0.98);
      tex.style.fontSize = `${k}em`;
      if (k === 0.4) break;
    }
  }
}

if (!customElements.get('attn-tex')) customElements.define('attn-tex', AttnTex);
