import { parseIp } from '@secadmin/policy';
import type { RequestHandler } from 'express';
import { authOf, operationOf } from '../http/auth.js';
import { invalid } from '../http/errors.js';
import { created, noContent, ok, sendPage } from '../http/respond.js';
import { parseInstant } from '../lib/time.js';
import { policyDetail, policyListItem } from '../representations.js';
import type { AccessService } from '../services/access-service.js';
import type { PoliciesService } from '../services/policies-service.js';
import type { Body } from './users.js';

const id = (res: Parameters<RequestHandler>[1]) => operationOf(res).params.id as string;

export function policyHandlers(policies: PoliciesService, access: AccessService) {
  return {
    listPolicies: (async (req, res) => {
      const page = await policies.list(req.query as unknown as { limit: number; cursor?: string });
      sendPage(res, { items: page.items.map(policyListItem), nextCursor: page.nextCursor });
    }) satisfies RequestHandler,
    createPolicy: (async (req, res) => {
      created(
        res,
        policyDetail(await policies.create(authOf(res).actor, req.body as Body<'createPolicy'>)),
      );
    }) satisfies RequestHandler,
    getPolicy: (async (_req, res) => {
      ok(res, policyDetail(await policies.get(id(res))));
    }) satisfies RequestHandler,
    updatePolicy: (async (req, res) => {
      ok(
        res,
        policyDetail(
          await policies.update(authOf(res).actor, id(res), req.body as Body<'updatePolicy'>),
        ),
      );
    }) satisfies RequestHandler,
    deletePolicy: (async (_req, res) => {
      await policies.remove(authOf(res).actor, id(res));
      noContent(res);
    }) satisfies RequestHandler,
    simulatePolicy: (async (req, res) => {
      const body = req.body as Body<'simulatePolicy'>;
      const ip = body.context?.ip;
      if (ip !== undefined && !parseIp(ip))
        throw invalid('body.context.ip', 'must be an IPv4 or IPv6 address');
      const timeText = body.context?.time;
      const time = timeText === undefined ? undefined : parseInstant(timeText);
      if (timeText !== undefined && !time)
        throw invalid('body.context.time', 'must be an ISO 8601 instant');
      const decision = await access.decide(
        {
          principal: body.principal,
          action: body.action,
          resource: body.resource,
          context: { ip, time },
          explain: body.explain === true,
        },
        authOf(res).versions,
      );
      ok(res, decision);
    }) satisfies RequestHandler,
  };
}
