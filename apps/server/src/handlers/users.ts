import type { operations } from '@secadmin/api-types';
import type { RequestHandler } from 'express';
import { authOf, operationOf } from '../http/auth.js';
import { created, noContent, ok, sendPage } from '../http/respond.js';
import { userDetail, userListItem } from '../representations.js';
import type { UsersService } from '../services/users-service.js';

type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

const id = (res: Parameters<RequestHandler>[1]) => operationOf(res).params.id as string;

export function userHandlers(users: UsersService) {
  return {
    listUsers: (async (req, res) => {
      const query = req.query as unknown as {
        limit: number;
        cursor?: string;
        email?: string;
        role?: string;
      };
      const page = await users.list(query);
      sendPage(res, { items: page.items.map(userListItem), nextCursor: page.nextCursor });
    }) satisfies RequestHandler,
    createUser: (async (req, res) => {
      created(
        res,
        userDetail(await users.create(authOf(res).actor, req.body as Body<'createUser'>)),
      );
    }) satisfies RequestHandler,
    getUser: (async (_req, res) => {
      ok(res, userDetail(await users.get(id(res))));
    }) satisfies RequestHandler,
    updateUser: (async (req, res) => {
      ok(
        res,
        userDetail(await users.update(authOf(res).actor, id(res), req.body as Body<'updateUser'>)),
      );
    }) satisfies RequestHandler,
    deleteUser: (async (_req, res) => {
      await users.remove(authOf(res).actor, id(res));
      noContent(res);
    }) satisfies RequestHandler,
  };
}

export type { Body };
