// Registers every attnlab widget with one import:
//   import 'attnlab/widgets';            (inside this repo: import './web/widgets/index.js')
// then use any tag: <attn-steps preset="football"></attn-steps>, <attn-multihead>, …
export { AttnSteps } from './steps/index.js';
export { AttnMultihead } from './multihead/index.js';
export { AttnPositional } from './positional/index.js';
export { AttnWhyScale } from './why-scale/index.js';
export { AttnConvex } from './convex/index.js';
export { AttnKernelRegression } from './kernel-regression/index.js';
export { AttnCross } from './cross/index.js';
export { AttnBlock } from './block/index.js';
export { AttnCost } from './cost/index.js';
export { AttnTrain } from './train/index.js';
export { AttnModel } from './model/index.js';
export { AttnRope } from './rope/index.js';
export { AttnBatched } from './batched/index.js';
