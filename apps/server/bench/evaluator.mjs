// Decisions per second and latency percentiles of the pure policy evaluator on a
// realistic mix of policies (exact and wildcard actions, roles, ${self}, IP conditions).
// Run: pnpm bench   (or: node apps/server/bench/evaluator.mjs [sizes…])
import { performance } from 'node:perf_hooks';
import { PolicyIndex } from '../dist/policy/index.js';

const AREAS = ['users', 'policies', 'logs', 'apikeys', 'documents', 'billing', 'reports', 'teams'];
const VERBS = ['read', 'list', 'create', 'update', 'delete', 'export'];

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function makePolicies(count, random = rng(42)) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const policies = [];
  for (let i = 0; i < count; i++) {
    const kind = random();
    const area = pick(AREAS);
    const policy = {
      id: `pol_${String(i).padStart(26, '0')}`,
      name: `p${i}`,
      effect: random() < 0.1 ? 'deny' : 'allow',
      principals: [],
      actions: [],
      resources: [],
    };
    if (kind < 0.4) {
      policy.principals = [`user:u${Math.floor(random() * count)}`];
      policy.actions = [`${area}:${pick(VERBS)}`];
      policy.resources = [`${area}/${Math.floor(random() * 1000)}`];
    } else if (kind < 0.7) {
      policy.principals = [`role:r${Math.floor(random() * 200)}`];
      policy.actions = [`${area}:*`];
      policy.resources = [`${area}/*`];
    } else if (kind < 0.85) {
      policy.principals = ['user:${self}'];
      policy.actions = [`${area}:${pick(VERBS)}`];
      policy.resources = [`${area}/\${self}/*`];
    } else {
      policy.principals = [`service:s${Math.floor(random() * 50)}`];
      policy.actions = [`${area}:${pick(VERBS)}`, `${pick(AREAS)}:read`];
      policy.resources = ['*'];
      policy.conditions = { ip: { allowlist: ['10.0.0.0/8', '2001:db8::/32'] } };
    }
    policies.push(policy);
  }
  return policies;
}

export function makeRequests(count, size, random = rng(7)) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  return Array.from({ length: count }, () => {
    const area = pick(AREAS);
    return {
      principal:
        random() < 0.7
          ? `user:u${Math.floor(random() * size)}`
          : `service:s${Math.floor(random() * 50)}`,
      roles: [`r${Math.floor(random() * 200)}`, `r${Math.floor(random() * 200)}`],
      action: `${area}:${pick(VERBS)}`,
      resource: `${area}/${Math.floor(random() * 1000)}`,
      context: { ip: random() < 0.5 ? '10.1.2.3' : '192.168.1.1', time: new Date() },
    };
  });
}

export function measure(size, { iterations = 20_000 } = {}) {
  const index = new PolicyIndex(makePolicies(size));
  const requests = makeRequests(2_000, size);
  for (let i = 0; i < 5_000; i++) index.evaluate(requests[i % requests.length]);
  const samples = new Float64Array(iterations);
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    index.evaluate(requests[i % requests.length]);
    samples[i] = performance.now() - t;
  }
  const total = performance.now() - started;
  samples.sort();
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return {
    size,
    decisionsPerSecond: Math.round((iterations / total) * 1000),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv.slice(2).map(Number).filter(Boolean);
  console.log(`node ${process.version}`);
  for (const size of sizes.length ? sizes : [100, 1_000, 10_000, 100_000]) {
    const r = measure(size);
    console.log(
      `${String(size).padStart(7)} policies: ${r.decisionsPerSecond.toLocaleString('en')} decisions/s, p50 ${r.p50Ms.toFixed(4)} ms, p99 ${r.p99Ms.toFixed(4)} ms`,
    );
  }
}
