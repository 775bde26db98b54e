// Where <attn-model> gets its models and tokens, through the public entries only: the API's GPT-2
// tokenizer (web/api) and attnlab's shipped induction model with its task's tokens (web/train).
export { createGpt2Tokenizer } from '../../api/index.js';
export { loadPretrained, tasks } from '../../train/index.js';
