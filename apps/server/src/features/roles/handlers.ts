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
import { roleDetail } from './representation.js';
import type { RolesService } from './service.js';

export function roleHandlers(roles: RolesService) {
  const listRoles: Handler<'listRoles'> = async ({ query, res }) => {
    const page = await roles.list(query);
    sendPage(res, { items: page.items.map(roleDetail), nextCursor: page.nextCursor });
  };
  const createRole: Handler<'createRole'> = async ({ actor, body, res }) => {
    const role = await roles.create(actor, body);
    res.setHeader('ETag', entityTag(role));
    created(res, roleDetail(role));
  };
  const getRole: Handler<'getRole'> = async ({ params, req, res }) => {
    const role = await roles.get(params.id);
    if (!notModified(req, res, entityTag(role))) ok(res, roleDetail(role));
  };
  const updateRole: Handler<'updateRole'> = async ({ actor, params, body, req, res }) => {
    const role = await roles.update(actor, params.id, body, ifMatch(req));
    res.setHeader('ETag', entityTag(role));
    ok(res, roleDetail(role));
  };
  const deleteRole: Handler<'deleteRole'> = async ({ actor, params, req, res }) => {
    await roles.remove(actor, params.id, ifMatch(req));
    noContent(res);
  };
  return { listRoles, createRole, getRole, updateRole, deleteRole };
}
