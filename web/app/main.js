// The attnlab app: every widget in lecture order. Each widget loads the one shared WASM module
// itself; this file registers them and says so when the browser cannot run WASM SIMD.
import { supportsWasmSimd } from '../api/index.js';
import { NO_SIMD_MESSAGE } from '../widgets/shared/widget.js';
import '../widgets/steps/index.js';
import '../widgets/convex/index.js';
import '../widgets/kernel-regression/index.js';
import '../widgets/why-scale/index.js';
import '../widgets/cross/index.js';
import '../widgets/multihead/index.js';
import '../widgets/positional/index.js';
import '../widgets/block/index.js';
import '../widgets/cost/index.js';
import './app.css';

const status = document.querySelector('.status');
if (!supportsWasmSimd()) {
  status.textContent = NO_SIMD_MESSAGE;
  status.classList.add('failure');
} else status.hidden = true;
