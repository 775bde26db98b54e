import type { AttnSteps } from './attn-steps.js';
export { AttnSteps };
declare global {
  interface HTMLElementTagNameMap { 'attn-steps': AttnSteps; }
  interface HTMLElementEventMap { 'attn-state-change': CustomEvent<{ state: Record<string, unknown> }>; }
}
