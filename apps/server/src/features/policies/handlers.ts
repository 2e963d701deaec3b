import { parseIp } from '@secadmin/policy';
import type { Handler } from '../../http/context.js';
import { created, noContent, ok, sendPage } from '../../http/respond.js';
import { invalid } from '../../lib/errors.js';
import { parseInstant } from '../../lib/time.js';
import type { AccessService } from './access-service.js';
import { policyDetail, policyListItem } from './representation.js';
import type { PoliciesService } from './service.js';

export function policyHandlers(policies: PoliciesService, access: AccessService) {
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
    const ip = body.context?.ip;
    if (ip !== undefined && !parseIp(ip))
      throw invalid('context.ip', 'must be an IPv4 or IPv6 address');
    const timeText = body.context?.time;
    const time = timeText === undefined ? undefined : parseInstant(timeText);
    if (timeText !== undefined && !time)
      throw invalid('context.time', 'must be an ISO 8601 instant');
    const decision = await access.decide(
      {
        principal: body.principal,
        action: body.action,
        resource: body.resource,
        context: { ip, time },
        explain: body.explain === true,
      },
      versions,
    );
    ok(res, decision);
  };
  return { listPolicies, createPolicy, getPolicy, updatePolicy, deletePolicy, simulatePolicy };
}
