import { type Handler, ifMatch, noContent, sendScim } from '../../http/index.js';
import type { RequestActor } from '../../lib/actor.js';
import { entityTag } from '../../lib/etag.js';
import { listOf, resourceTypes, schemas, serviceProviderConfig } from './discovery.js';
import type { ScimGroups } from './groups-service.js';
import { projection } from './representation.js';
import type { ScimUsers } from './users-service.js';

/** Every SCIM change is marked so, in its audit entry's `metadata.via`. */
const viaScim = (actor: RequestActor): RequestActor => ({ ...actor, via: 'scim' });

export function scimHandlers(users: ScimUsers, groups: ScimGroups, base: string) {
  const listScimUsers: Handler<'listScimUsers'> = async ({ actor, query, res }) => {
    sendScim(res, 200, await users.listUsers(actor, query, projection(query)));
  };
  const createScimUser: Handler<'createScimUser'> = async ({ actor, body, res }) => {
    const { resource, user } = await users.createUser(viaScim(actor), body);
    res.setHeader('ETag', entityTag(user));
    res.setHeader('Location', resource.meta.location);
    sendScim(res, 201, resource);
  };
  const getScimUser: Handler<'getScimUser'> = async ({ actor, params, query, res }) => {
    const { resource, user } = await users.getUser(actor, params.id, projection(query));
    res.setHeader('ETag', entityTag(user));
    sendScim(res, 200, resource);
  };
  const replaceScimUser: Handler<'replaceScimUser'> = async ({ actor, params, body, req, res }) => {
    const { resource, user } = await users.replaceUser(
      viaScim(actor),
      params.id,
      body,
      ifMatch(req),
    );
    res.setHeader('ETag', entityTag(user));
    sendScim(res, 200, resource);
  };
  const patchScimUser: Handler<'patchScimUser'> = async ({ actor, params, body, req, res }) => {
    const { resource, user } = await users.patchUser(viaScim(actor), params.id, body, ifMatch(req));
    res.setHeader('ETag', entityTag(user));
    sendScim(res, 200, resource);
  };
  const deleteScimUser: Handler<'deleteScimUser'> = async ({ actor, params, req, res }) => {
    await users.deleteUser(viaScim(actor), params.id, ifMatch(req));
    noContent(res);
  };
  const listScimGroups: Handler<'listScimGroups'> = async ({ actor, query, res }) => {
    sendScim(res, 200, await groups.listGroups(actor, query, projection(query)));
  };
  const createScimGroup: Handler<'createScimGroup'> = async ({ actor, body, res }) => {
    const { resource, role } = await groups.createGroup(viaScim(actor), body);
    res.setHeader('ETag', entityTag(role));
    res.setHeader('Location', resource.meta.location);
    sendScim(res, 201, resource);
  };
  const getScimGroup: Handler<'getScimGroup'> = async ({ actor, params, query, res }) => {
    const { resource, role } = await groups.getGroup(actor, params.id, projection(query));
    res.setHeader('ETag', entityTag(role));
    sendScim(res, 200, resource);
  };
  const replaceScimGroup: Handler<'replaceScimGroup'> = async ({
    actor,
    params,
    body,
    req,
    res,
  }) => {
    const { resource, role } = await groups.replaceGroup(
      viaScim(actor),
      params.id,
      body,
      ifMatch(req),
    );
    res.setHeader('ETag', entityTag(role));
    sendScim(res, 200, resource);
  };
  const patchScimGroup: Handler<'patchScimGroup'> = async ({ actor, params, body, req, res }) => {
    const { resource, role } = await groups.patchGroup(
      viaScim(actor),
      params.id,
      body,
      ifMatch(req),
    );
    res.setHeader('ETag', entityTag(role));
    sendScim(res, 200, resource);
  };
  const deleteScimGroup: Handler<'deleteScimGroup'> = async ({ actor, params, req, res }) => {
    await groups.deleteGroup(viaScim(actor), params.id, ifMatch(req));
    noContent(res);
  };
  const getScimServiceProviderConfig: Handler<'getScimServiceProviderConfig'> = ({ res }) =>
    sendScim(res, 200, serviceProviderConfig(base));
  const listScimResourceTypes: Handler<'listScimResourceTypes'> = ({ res }) =>
    sendScim(res, 200, listOf(resourceTypes(base)));
  const listScimSchemas: Handler<'listScimSchemas'> = ({ res }) =>
    sendScim(res, 200, listOf(schemas(base)));
  return {
    listScimUsers,
    createScimUser,
    getScimUser,
    replaceScimUser,
    patchScimUser,
    deleteScimUser,
    listScimGroups,
    createScimGroup,
    getScimGroup,
    replaceScimGroup,
    patchScimGroup,
    deleteScimGroup,
    getScimServiceProviderConfig,
    listScimResourceTypes,
    listScimSchemas,
  };
}
