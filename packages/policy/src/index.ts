export { combineDecisions } from './combine.js';
export { parseCidr, parseIp } from './ip.js';
export { SELF, selfOf } from './patterns.js';
export { PolicyIndex } from './policy-index.js';
export type * from './types.js';
