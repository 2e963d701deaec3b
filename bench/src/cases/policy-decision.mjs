// Policy decisions in process: secadmin's evaluator vs Cedar (WASM) vs casbin, on the
// same policy mix and the same requests; decisions agree (checked) before they are timed.
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { PolicyIndex } from '@secadmin/policy';
import { newEnforcer, newModelFromString } from 'casbin';
import { cyclic, measureSync, measureSyncInterleaved } from '../lib/measure.mjs';
import {
  CASBIN_MODEL,
  cedarCall,
  makePolicies,
  makeRequestAttributes,
  makeRequests,
  toCasbin,
  toCedar,
  withAttributeConditions,
} from '../lib/policy-workload.mjs';

/** @import { Row } from '../lib/measure.mjs' */
/** @import { WorkloadRequest } from '../lib/policy-workload.mjs' */

/**
 * The same decisions with 10 % of the policies carrying attribute conditions and every
 * request carrying attributes, against the same decisions without: the target is at least
 * 0.8× the throughput without them.
 * @param {number} size
 * @param {import('../lib/policy-workload.mjs').WorkloadPolicy[]} policies
 * @param {WorkloadRequest[]} requests
 * @param {(r: WorkloadRequest) => boolean} plain
 * @param {boolean} smoke
 * @returns {Row}
 */
function attributeConditionsRow(size, policies, requests, plain, smoke) {
  const index = new PolicyIndex(withAttributeConditions(policies));
  const attributes = makeRequestAttributes(requests.length);
  /** @param {number} i */
  const withAttributes = (i) => {
    const r = cyclic(requests, i);
    return index.evaluate({
      principal: r.principal,
      roles: r.roles,
      action: r.action,
      resource: r.resource,
      context: { ip: r.ip },
      attributes: cyclic(attributes, i),
    }).allowed;
  };
  const iterations = smoke ? 2000 : 50_000;
  const [without, withThem] = measureSyncInterleaved(
    [(i) => plain(cyclic(requests, i)), withAttributes],
    { iterations },
  );
  const ratio = withThem.perSecond / without.perSecond;
  return {
    case: `policy decision, ${size.toLocaleString('en')} policies, 10 % with attribute conditions`,
    peer: 'secadmin without attribute conditions',
    secadmin: `${Math.round(withThem.perSecond).toLocaleString('en')} decisions/s (p99 ${withThem.p99Ms.toFixed(3)} ms)`,
    peerFigure: `${Math.round(without.perSecond).toLocaleString('en')} decisions/s (p99 ${without.p99Ms.toFixed(3)} ms)`,
    ratio,
    target: '≥ 0.8× without',
    met: ratio >= 0.8,
    detail: { size, withAttributes: withThem, without },
  };
}

/**
 * A resource pattern whose middle part nearly matches at every placement (`*aaa…ab*` against
 * `aaa…a`, quadratic for a scan that restarts at each placement) against a plain one of the same
 * length that never starts. A linear scan reads each character about twice instead of once, a
 * quadratic one about 150 times: the target is at least 0.25× the plain one's throughput.
 * @param {boolean} smoke
 * @returns {Row}
 */
function nearMissPatternRow(smoke) {
  /** @param {string} resource */
  const indexFor = (resource) =>
    new PolicyIndex([
      {
        id: 'pol_glob',
        name: 'glob',
        effect: 'allow',
        principals: ['user:u'],
        actions: ['doc:read'],
        resources: [resource],
      },
    ]);
  const resources = Array.from({ length: 100 }, (_, i) => `${'a'.repeat(508)}${i}`);
  /** @param {PolicyIndex} index */
  const decide = (index) => (/** @type {number} */ i) =>
    index.evaluate({ principal: 'user:u', action: 'doc:read', resource: cyclic(resources, i) })
      .allowed;
  const [plain, nearMiss] = measureSyncInterleaved(
    [decide(indexFor(`*${'c'.repeat(150)}b*`)), decide(indexFor(`*${'a'.repeat(150)}b*`))],
    { iterations: smoke ? 2000 : 50_000 },
  );
  const ratio = nearMiss.perSecond / plain.perSecond;
  return {
    case: 'policy decision, a resource pattern that makes a naive scan quadratic (500-character resource)',
    peer: 'secadmin with a plain pattern of the same length',
    secadmin: `${Math.round(nearMiss.perSecond).toLocaleString('en')} decisions/s (p99 ${nearMiss.p99Ms.toFixed(3)} ms)`,
    peerFigure: `${Math.round(plain.perSecond).toLocaleString('en')} decisions/s (p99 ${plain.p99Ms.toFixed(3)} ms)`,
    ratio,
    target: '≥ 0.25× the plain pattern',
    met: ratio >= 0.25,
    detail: { nearMiss, plain },
  };
}

/** @param {{ smoke: boolean, sizes?: number[] }} options */
export async function policyDecision(options) {
  const { smoke } = options;
  const sizes = options.sizes ?? (smoke ? [100, 1000] : [100, 1_000, 10_000, 100_000]);
  /** @type {Row[]} */
  const rows = [nearMissPatternRow(smoke)];
  for (const size of sizes) {
    const policies = makePolicies(size);
    const requests = makeRequests(2000, size);
    const index = new PolicyIndex(policies);
    /** @param {WorkloadRequest} r */
    const secadmin = (r) =>
      index.evaluate({
        principal: r.principal,
        roles: r.roles,
        action: r.action,
        resource: r.resource,
        context: { ip: r.ip },
      }).allowed;

    if (size === 1_000 || size === 10_000)
      rows.push(attributeConditionsRow(size, policies, requests, secadmin, smoke));

    // Cedar needs ~3 minutes just to parse 100,000 policies here: opt in with BENCH_PEERS_100K=1.
    if (size > 10_000 && process.env.BENCH_PEERS_100K !== '1') {
      const ours = measureSync((i) => secadmin(cyclic(requests, i)), {
        iterations: 50_000,
      });
      rows.push({
        case: `policy decision, ${size.toLocaleString('en')} policies`,
        peer: 'Cedar (cedar-wasm)',
        secadmin: `${Math.round(ours.perSecond).toLocaleString('en')} decisions/s (p99 ${ours.p99Ms.toFixed(3)} ms)`,
        peerFigure: 'not run (BENCH_PEERS_100K=1; Cedar parse ≈ 3 min)',
        ratio: null,
        target: '≥ 1× Cedar; p99 < 1 ms',
        met: ours.p99Ms < 1,
        detail: { size, secadmin: ours },
      });
      continue;
    }
    const setId = `set${size}`;
    const parsed = cedar.preparsePolicySet(setId, { staticPolicies: toCedar(policies) });
    if (parsed.type !== 'success')
      throw new Error(`Cedar could not parse: ${JSON.stringify(parsed.errors?.[0])}`);
    /** @param {WorkloadRequest} r */
    const cedarDecide = (r) => {
      const answer = cedar.statefulIsAuthorized(cedarCall(r, setId));
      if (answer.type !== 'success') throw new Error(JSON.stringify(answer.errors?.[0]));
      return answer.response.decision === 'allow';
    };

    const enforcer = await newEnforcer(newModelFromString(CASBIN_MODEL));
    await enforcer.addPolicies(toCasbin(policies));
    /** @type {string[][]} */
    const grouping = [];
    for (const r of requests)
      for (const role of r.roles) grouping.push([r.principal, `role:${role}`]);
    await enforcer.addGroupingPolicies([
      ...new Map(grouping.map((g) => [g.join('|'), g])).values(),
    ]);
    /** @param {WorkloadRequest} r */
    const casbinDecide = (r) => enforcer.enforceSync(r.principal, r.id, r.resource, r.action, r.ip);

    // The three must agree, or the comparison means nothing.
    // (Cedar and casbin scan every policy: at 100,000 they take ~0.3 s a decision.)
    const sample = requests.slice(0, size <= 1000 ? 200 : 30);
    const disagreements = sample.filter(
      (r) => secadmin(r) !== cedarDecide(r) || secadmin(r) !== casbinDecide(r),
    ).length;
    const allowed = sample.filter(secadmin).length;
    if (disagreements > 0)
      throw new Error(
        `${disagreements} of ${sample.length} decisions disagree at ${size} policies`,
      );

    const iterations = smoke ? 2000 : 50_000;
    const peerBudget = { iterations, warmup: 5, budgetMs: smoke ? 300 : 5000 };
    const ours = measureSync((i) => secadmin(cyclic(requests, i)), { iterations });
    const theirs = measureSync((i) => cedarDecide(cyclic(requests, i)), peerBudget);
    const casbinResult = measureSync((i) => casbinDecide(cyclic(requests, i)), peerBudget);
    rows.push({
      case: `policy decision, ${size.toLocaleString('en')} policies`,
      peer: 'Cedar (cedar-wasm)',
      secadmin: `${Math.round(ours.perSecond).toLocaleString('en')} decisions/s (p99 ${ours.p99Ms.toFixed(3)} ms)`,
      peerFigure: `${Math.round(theirs.perSecond).toLocaleString('en')} decisions/s (p99 ${theirs.p99Ms.toFixed(3)} ms); casbin ${Math.round(casbinResult.perSecond).toLocaleString('en')}/s`,
      ratio: ours.perSecond / theirs.perSecond,
      target: size === 100_000 ? '≥ 1× Cedar; p99 < 1 ms' : '≥ 1× Cedar',
      met: ours.perSecond >= theirs.perSecond && (size !== 100_000 || ours.p99Ms < 1),
      detail: {
        size,
        agreementChecked: sample.length,
        allowedInSample: allowed,
        secadmin: ours,
        cedar: theirs,
        casbin: casbinResult,
      },
    });
  }
  return rows;
}
