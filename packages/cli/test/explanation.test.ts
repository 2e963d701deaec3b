import { describe, expect, it } from 'vitest';
import { printDecision } from '../src/explanation.js';
import type { Output } from '../src/output.js';

describe('printDecision', () => {
  it('prints a hidden policy by its effect and outcome, with dashes for the parts the server hides', () => {
    const lines: string[] = [];
    const out = {
      line: (text = '') => {
        lines.push(text);
      },
    } as Partial<Output> as Output;
    printDecision(
      {
        allowed: true,
        effect: 'allow',
        decision: 'allow',
        matchedPolicies: [{ id: 'hidden', name: 'hidden', effect: 'allow' }],
        evaluationTimeMs: 0,
        explanation: [{ policyId: 'hidden', policyName: 'hidden', effect: 'allow', matched: true }],
        missingContextKeys: [],
      },
      out,
    );
    expect(lines[0]).toBe('decision: allow (matched: hidden)');
    expect(lines[2]).toMatch(/^hidden\s+allow\s+yes\s+-\s+-\s+-\s*$/);
  });
});
