/** The QBFT validation rule names, defined with the trace events (node/runtime/validation-rules.ts) and re-exported for the consensus core and the byzantine simulator. */
export { UNJUDGED_RULES, VALIDATION_RULES, type RejectionRule, type UnjudgedRule, type ValidationRule } from '../../runtime/validation-rules.ts';
