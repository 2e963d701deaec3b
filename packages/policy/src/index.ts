export {
  ATTRIBUTE_LIMITS,
  type AttributeProblem,
  attributeConditionProblems,
} from './attributes.js';
export { combineDecisions } from './combine.js';
export { parseInstantMs } from './instant.js';
export { parseCidr, parseIp } from './ip.js';
export { SELF, selfOf } from './patterns.js';
export { PolicyIndex } from './policy-index.js';
export type * from './types.js';
