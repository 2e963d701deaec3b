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
import { userDetail, userListItem } from './representation.js';
import type { UsersService } from './service.js';

export function userHandlers(users: UsersService) {
  const listUsers: Handler<'listUsers'> = async ({ query, res }) => {
    const page = await users.list(query);
    sendPage(res, { items: page.items.map(userListItem), nextCursor: page.nextCursor });
  };
  const createUser: Handler<'createUser'> = async ({ actor, body, res }) => {
    const user = await users.create(actor, body);
    res.setHeader('ETag', entityTag(user));
    created(res, userDetail(user));
  };
  const getUser: Handler<'getUser'> = async ({ params, req, res }) => {
    const user = await users.get(params.id);
    if (!notModified(req, res, entityTag(user))) ok(res, userDetail(user));
  };
  const updateUser: Handler<'updateUser'> = async ({ actor, params, body, req, res }) => {
    const user = await users.update(actor, params.id, body, ifMatch(req));
    res.setHeader('ETag', entityTag(user));
    ok(res, userDetail(user));
  };
  const deleteUser: Handler<'deleteUser'> = async ({ actor, params, req, res }) => {
    await users.remove(actor, params.id, ifMatch(req));
    noContent(res);
  };
  return { listUsers, createUser, getUser, updateUser, deleteUser };
}
