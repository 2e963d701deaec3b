import type { SimulationResult } from '@secadmin/api-client';
import { formatTable, type Output } from './output.js';

/** `-` where the server hides a policy's parts (a stored policy the key may not read). */
const yesNo = (value: boolean | undefined) => (value === undefined ? '-' : value ? 'yes' : 'no');

/** The decision, then one row per policy considered: which parts matched, and each condition. */
export function printDecision(result: SimulationResult, out: Output, indent = ''): void {
  const matched = result.matchedPolicies.map((policy) => policy.name).join(', ') || 'none';
  out.line(`${indent}decision: ${result.decision} (matched: ${matched})`);
  if (!result.explanation) return;
  const rows = result.explanation.map((entry) => ({
    policy: entry.policyName,
    effect: entry.effect,
    matched: yesNo(entry.matched),
    principal: yesNo(entry.principal),
    action: yesNo(entry.action),
    resource: yesNo(entry.resource),
    conditions: Object.entries(entry.conditions ?? {})
      .map(([path, held]) => `${path}=${yesNo(held)}`)
      .join(' '),
  }));
  for (const line of formatTable(rows).trimEnd().split('\n')) out.line(`${indent}${line}`);
  if (result.missingContextKeys?.length)
    out.line(`${indent}missing context: ${result.missingContextKeys.join(', ')}`);
}
