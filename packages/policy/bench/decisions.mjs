// `pnpm bench`: decisions per second and latency of PolicyIndex.evaluate over a generated
// policy set. Sizes are policy counts: `node bench/decisions.mjs 100 100000`. With
// `--attributes`, 10 % of the policies carry attribute conditions and every request carries
// attributes: `node bench/decisions.mjs --attributes 1000 10000`.
import { PolicyIndex } from '@secadmin/policy';

const AREAS = ['users', 'policies', 'logs', 'apikeys', 'documents', 'billing', 'reports', 'teams'];
const VERBS = ['read', 'list', 'create', 'update', 'delete', 'export'];
const DECISIONS = 20_000;

function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// The mix of bench/src/lib/policy-workload.mjs: 40 % exact user grants, 30 % role grants on
// `<area>:*` and `<area>/*`, 15 % `${self}` grants, 15 % service grants with an IP
// allowlist; 10 % of all are denies.
function makePolicies(count, random = seeded(42)) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const users = Math.max(10, Math.floor(count / 4));
  return Array.from({ length: count }, (_, i) => {
    const kind = random();
    const area = pick(AREAS);
    const effect = random() < 0.1 ? 'deny' : 'allow';
    const base = { id: `pol_${String(i).padStart(26, '0')}`, name: `p${i}`, effect };
    if (kind < 0.4)
      return {
        ...base,
        principals: [`user:u${Math.floor(random() * users)}`],
        actions: [`${area}:${pick(VERBS)}`],
        resources: [`${area}/${Math.floor(random() * 100)}`],
      };
    if (kind < 0.7)
      return {
        ...base,
        principals: [`role:r${Math.floor(random() * 200)}`],
        actions: [`${area}:*`],
        resources: [`${area}/*`],
      };
    if (kind < 0.85)
      return {
        ...base,
        principals: ['user:${self}'],
        actions: [`${area}:${pick(VERBS)}`],
        resources: [`${area}/\${self}`],
      };
    return {
      ...base,
      principals: [`service:s${Math.floor(random() * 50)}`],
      actions: [`${area}:${pick(VERBS)}`, `${pick(AREAS)}:read`],
      resources: ['*'],
      conditions: { ip: { allowlist: ['10.0.0.0/8', '2001:db8::/32'] } },
    };
  });
}

function makeRequests(count, policyCount, random = seeded(7)) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const users = Math.max(10, Math.floor(policyCount / 4));
  return Array.from({ length: count }, () => {
    const area = pick(AREAS);
    const isUser = random() < 0.7;
    const n = Math.floor(random() * (isUser ? users : 50));
    const rest = isUser && random() < 0.2 ? `u${n}` : String(Math.floor(random() * 100));
    return {
      principal: isUser ? `user:u${n}` : `service:s${n}`,
      roles: isUser ? [`r${(n * 7) % 200}`, `r${(n * 13 + 5) % 200}`] : [],
      action: `${area}:${pick(VERBS)}`,
      resource: `${area}/${rest}`,
      context: { ip: random() < 0.5 ? '10.1.2.3' : '192.168.1.1' },
    };
  });
}

const WITH_ATTRIBUTES = process.argv.includes('--attributes');
const DEPARTMENTS = ['sales', 'support', 'security', 'legal'];

/** Every tenth policy, in turn on the resource and on the principal. */
function withAttributes(policies) {
  return policies.map((policy, i) =>
    i % 10 !== 0
      ? policy
      : {
          ...policy,
          conditions: {
            ...policy.conditions,
            attributes:
              i % 20 === 0
                ? { 'resource.status': { notEquals: 'archived' } }
                : { 'principal.metadata.department': { in: ['sales', 'support'] } },
          },
        },
  );
}

function attributed(requests, random = seeded(11)) {
  // Written out, not spread: the same object shape as the requests without attributes.
  return requests.map(({ principal, roles, action, resource, context }) => ({
    principal,
    roles,
    action,
    resource,
    context,
    attributes: {
      principal: { metadata: { department: DEPARTMENTS[Math.floor(random() * 4)] } },
      resource: { status: random() < 0.2 ? 'archived' : 'open', owner: 'u1' },
    },
  }));
}

const sizes = process.argv
  .slice(2)
  .filter((arg) => arg !== '--attributes')
  .map(Number);
if (WITH_ATTRIBUTES) console.log('10 % of policies with attribute conditions');
// CPU µs per decision (process.cpuUsage) hardly moves with what else the machine runs;
// decisions/s and the percentiles are wall-clock time.
console.log('policies  decisions/s   p50 µs   p99 µs  CPU µs  allowed');
for (const size of sizes.length > 0 ? sizes : [100, 1_000, 10_000]) {
  const policies = makePolicies(size);
  const index = new PolicyIndex(WITH_ATTRIBUTES ? withAttributes(policies) : policies);
  const requests = WITH_ATTRIBUTES
    ? attributed(makeRequests(2_000, size))
    : makeRequests(2_000, size);
  const decide = (i) => index.evaluate(requests[i % requests.length]);
  for (let i = 0; i < DECISIONS; i++) decide(i); // warm-up

  // Throughput without a clock read per call; latency with one.
  let allowed = 0;
  let t = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < DECISIONS; i++) if (decide(i).allowed) allowed++;
  const perSecond = DECISIONS / ((performance.now() - t) / 1000);
  const { user, system } = process.cpuUsage(cpu);
  const cpuPerDecision = ((user + system) / DECISIONS).toFixed(2);
  const samples = new Float64Array(DECISIONS);
  for (let i = 0; i < DECISIONS; i++) {
    t = performance.now();
    decide(i);
    samples[i] = (performance.now() - t) * 1000;
  }
  samples.sort();
  const at = (q) => samples[Math.floor(q * DECISIONS)].toFixed(1);
  console.log(
    `${size.toLocaleString('en').padStart(8)}  ${Math.round(perSecond).toLocaleString('en').padStart(11)}  ${at(0.5).padStart(7)}  ${at(0.99).padStart(7)}  ${cpuPerDecision.padStart(6)}  ${((100 * allowed) / DECISIONS).toFixed(0).padStart(6)} %`,
  );
}
