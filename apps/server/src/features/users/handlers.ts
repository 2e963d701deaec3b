import type { Handler } from '../../http/context.js';
import { created, noContent, ok, sendPage } from '../../http/respond.js';
import { userDetail, userListItem } from './representation.js';
import type { UsersService } from './service.js';

export function userHandlers(users: UsersService) {
  const listUsers: Handler<'listUsers'> = async ({ query, res }) => {
    const page = await users.list(query);
    sendPage(res, { items: page.items.map(userListItem), nextCursor: page.nextCursor });
  };
  const createUser: Handler<'createUser'> = async ({ actor, body, res }) => {
    created(res, userDetail(await users.create(actor, body)));
  };
  const getUser: Handler<'getUser'> = async ({ params, res }) => {
    ok(res, userDetail(await users.get(params.id)));
  };
  const updateUser: Handler<'updateUser'> = async ({ actor, params, body, res }) => {
    ok(res, userDetail(await users.update(actor, params.id, body)));
  };
  const deleteUser: Handler<'deleteUser'> = async ({ actor, params, res }) => {
    await users.remove(actor, params.id);
    noContent(res);
  };
  return { listUsers, createUser, getUser, updateUser, deleteUser };
}
