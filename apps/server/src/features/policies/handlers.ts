import {
  created,
  type Handler,
  ifMatch,
  noContent,
  notModified,
  ok,
  sendPage,
} from '../../http/index.js';
import { entityTag } from '../../lib/etag.js';
import { policyDetail, policyListItem } from './representation.js';
import type { PoliciesService } from './service.js';
import type { SimulationService } from './simulation.js';

export function policyHandlers(policies: PoliciesService, simulation: SimulationService) {
  const listPolicies: Handler<'listPolicies'> = async ({ query, res }) => {
    const page = await policies.list(query);
    sendPage(res, { items: page.items.map(policyListItem), nextCursor: page.nextCursor });
  };
  const createPolicy: Handler<'createPolicy'> = async ({ actor, body, res }) => {
    const policy = await policies.create(actor, body);
    res.setHeader('ETag', entityTag(policy));
    created(res, policyDetail(policy));
  };
  const getPolicy: Handler<'getPolicy'> = async ({ params, req, res }) => {
    const policy = await policies.get(params.id);
    if (!notModified(req, res, entityTag(policy))) ok(res, policyDetail(policy));
  };
  const updatePolicy: Handler<'updatePolicy'> = async ({ actor, params, body, req, res }) => {
    const policy = await policies.update(actor, params.id, body, ifMatch(req));
    res.setHeader('ETag', entityTag(policy));
    ok(res, policyDetail(policy));
  };
  const deletePolicy: Handler<'deletePolicy'> = async ({ actor, params, req, res }) => {
    await policies.remove(actor, params.id, ifMatch(req));
    noContent(res);
  };
  const simulatePolicy: Handler<'simulatePolicy'> = async ({ actor, body, res }) => {
    ok(res, await simulation.simulate(body, actor));
  };
  const simulatePolicyBatch: Handler<'simulatePolicyBatch'> = async ({ actor, body, res }) => {
    ok(res, { results: await simulation.simulateBatch(body, actor) });
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
