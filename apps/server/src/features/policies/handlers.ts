import type { Handler } from '../../http/context.js';
import { created, noContent, ok, sendPage } from '../../http/respond.js';
import { policyDetail, policyListItem } from './representation.js';
import type { PoliciesService } from './service.js';
import type { SimulationService } from './simulation.js';

export function policyHandlers(policies: PoliciesService, simulation: SimulationService) {
  const listPolicies: Handler<'listPolicies'> = async ({ query, res }) => {
    const page = await policies.list(query);
    sendPage(res, { items: page.items.map(policyListItem), nextCursor: page.nextCursor });
  };
  const createPolicy: Handler<'createPolicy'> = async ({ actor, body, res }) => {
    created(res, policyDetail(await policies.create(actor, body)));
  };
  const getPolicy: Handler<'getPolicy'> = async ({ params, res }) => {
    ok(res, policyDetail(await policies.get(params.id)));
  };
  const updatePolicy: Handler<'updatePolicy'> = async ({ actor, params, body, res }) => {
    ok(res, policyDetail(await policies.update(actor, params.id, body)));
  };
  const deletePolicy: Handler<'deletePolicy'> = async ({ actor, params, res }) => {
    await policies.remove(actor, params.id);
    noContent(res);
  };
  const simulatePolicy: Handler<'simulatePolicy'> = async ({ body, versions, res }) => {
    ok(res, await simulation.simulate(body, versions));
  };
  const simulatePolicyBatch: Handler<'simulatePolicyBatch'> = async ({ body, versions, res }) => {
    ok(res, { results: await simulation.simulateBatch(body, versions) });
  };
  return {
    listPolicies,
    createPolicy,
    getPolicy,
    updatePolicy,
    deletePolicy,
    simulatePolicy,
    simulatePolicyBatch,
  };
}
