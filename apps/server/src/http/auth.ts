import type { Request, Response } from 'express';
import type { ApiKeysService } from '../features/api-keys/service.js';
import type { AccessService, StateVersions } from '../features/policies/access-service.js';
import type { RequestActor } from '../lib/request-actor.js';
import type { RateLimitStore } from '../rate-limit/store.js';
import type { Authenticated } from './context.js';
import { ApiError } from './errors.js';
import { type AccessRule, resourceOf } from './operations.js';
import { ANONYMOUS_LIMIT, enforceRateLimit } from './rate-limit.js';

const BEARER = /^Bearer +(\S+) *$/i;

/** The client's address, with an IPv4-mapped IPv6 address written as plain IPv4. */
function clientIp(req: Request): string | undefined {
  return req.ip?.startsWith('::ffff:') && req.ip.includes('.') ? req.ip.slice(7) : req.ip;
}

/**
 * 401 for a missing or rejected key (counted against the client IP's budget, and
 * recorded as `auth.failed` while that budget lasts), 429 past the key's budget.
 */
export function authenticator(deps: {
  currentVersions: () => Promise<StateVersions>;
  apiKeys: ApiKeysService;
  rateLimits: RateLimitStore;
  /** Records a rejected key (never the secret itself) as `auth.failed`. */
  audit: {
    recordAuthFailure(failure: {
      ip: string | undefined;
      userAgent: string | undefined;
      reason: string;
    }): Promise<void>;
  };
}): (req: Request, res: Response) => Promise<Authenticated & { secret: string }> {
  return async (req, res) => {
    const header = req.get('authorization');
    const secret = header === undefined ? undefined : BEARER.exec(header)?.[1];
    const versions = await deps.currentVersions();
    const result =
      secret === undefined ? undefined : await deps.apiKeys.authenticate(secret, versions);
    if (!result?.ok) {
      await enforceRateLimit(deps.rateLimits, res, `ip:${req.ip}`, ANONYMOUS_LIMIT);
      if (header !== undefined) {
        await deps.audit.recordAuthFailure({
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
    return { key, actor, versions, secret: secret as string };
  };
}

/** 403 when the key's principal may not call the operation (the root key may call any). */
export function authorizer(
  access: AccessService,
): (
  req: Request,
  auth: Authenticated,
  rule: AccessRule & object,
  params: Record<string, string>,
) => Promise<void> {
  return async (req, { key, versions }, rule, params) => {
    if (key.isRoot) return;
    const resource = resourceOf(rule, params);
    const decision = await access.decide(
      {
        principal: key.principal,
        action: rule.action,
        resource,
        context: { ip: clientIp(req), time: new Date() },
      },
      versions,
    );
    if (!decision.allowed)
      throw new ApiError('forbidden', `This key may not ${rule.action} on ${resource}.`);
  };
}
