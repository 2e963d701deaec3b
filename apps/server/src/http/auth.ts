import type { PrismaClient } from '@secadmin/db';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RateLimitStore } from '../rate-limit/store.js';
import type { ApiKeyRow } from '../repositories/api-keys-repository.js';
import type { StateVersions } from '../repositories/state-versions-repository.js';
import type { AccessService } from '../services/access-service.js';
import type { ApiKeysService } from '../services/api-keys-service.js';
import type { AuditWriter, RequestActor } from '../services/audit.js';
import { ACCESS_RULES } from './access-rules.js';
import { ApiError } from './errors.js';
import { ANONYMOUS_LIMIT, enforceRateLimit } from './rate-limit.js';
import type { MatchedOperation } from './spec.js';

export interface Authenticated {
  key: ApiKeyRow;
  actor: RequestActor;
  /** Read once per request: what every cache consulted for this request is checked against. */
  versions: StateVersions;
}

export function authOf(res: Response): Authenticated {
  return res.locals.auth as Authenticated;
}

export function operationOf(res: Response): MatchedOperation {
  return res.locals.operation as MatchedOperation;
}

const BEARER = /^Bearer +(\S+) *$/i;

/** The client's address, with an IPv4-mapped IPv6 address written as plain IPv4. */
function clientIp(req: Request): string | undefined {
  return req.ip?.startsWith('::ffff:') && req.ip.includes('.') ? req.ip.slice(7) : req.ip;
}

/**
 * 401 for a missing or rejected key (counted against the client IP's budget, and
 * recorded as `auth.failed` while that budget lasts), 429 past the key's budget.
 */
export function authenticate(deps: {
  prisma: PrismaClient;
  currentVersions: () => Promise<StateVersions>;
  apiKeys: ApiKeysService;
  rateLimits: RateLimitStore;
  audit: AuditWriter;
}): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('authorization');
    const secret = header === undefined ? undefined : BEARER.exec(header)?.[1];
    const versions = await deps.currentVersions();
    const result =
      secret === undefined ? undefined : await deps.apiKeys.authenticate(secret, versions);
    if (!result?.ok) {
      await enforceRateLimit(deps.rateLimits, res, `ip:${req.ip}`, ANONYMOUS_LIMIT);
      if (header !== undefined) {
        await deps.audit.recordAuthFailure(deps.prisma, {
          ip: clientIp(req),
          userAgent: req.get('user-agent'),
          reason: result?.reason ?? 'malformed',
        });
      }
      throw new ApiError(
        'unauthorized',
        header === undefined
          ? 'A valid API key is required (Authorization: Bearer sk_…).'
          : 'The API key is invalid, revoked or expired.',
      );
    }
    const { key } = result;
    await enforceRateLimit(deps.rateLimits, res, `key:${key.id}`, key.rateLimitPerMinute);
    const actor: RequestActor = {
      keyId: key.id,
      principal: key.principal,
      isRoot: key.isRoot,
      ip: clientIp(req),
      userAgent: req.get('user-agent'),
    };
    res.locals.auth = { key, actor, versions } satisfies Authenticated;
    next();
  };
}

/** 404 for an unknown route; 403 when the key's principal may not call the operation. */
export function authorize(deps: { access: AccessService }): RequestHandler {
  return async (req, res, next) => {
    const operation = res.locals.operation as MatchedOperation | undefined;
    if (!operation) throw new ApiError('not_found', `No route ${req.method} ${req.path}.`);
    const { key, versions } = authOf(res);
    const rule = ACCESS_RULES[operation.operationId];
    if (key.isRoot || rule === 'public') return next();
    const decision = await deps.access.decide(
      {
        principal: key.principal,
        action: rule.action,
        resource: rule.resource(operation.params),
        context: { ip: clientIp(req), time: new Date() },
      },
      versions,
    );
    if (!decision.allowed) {
      throw new ApiError(
        'forbidden',
        `This key may not ${rule.action} on ${rule.resource(operation.params)}.`,
      );
    }
    next();
  };
}
