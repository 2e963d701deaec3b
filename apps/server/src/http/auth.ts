import type { AccessRequest } from '@secadmin/policy';
import type { Request, Response } from 'express';
import type { RequestActor } from '../lib/actor.js';
import type { RateLimitStore } from '../rate-limit/store.js';
import type { Authenticated, CallerKey } from './context.js';
import { ApiError } from './errors.js';
import { type AccessRule, resourceOf } from './operations.js';
import { ANONYMOUS_LIMIT, enforceRateLimit } from './rate-limit.js';

const BEARER = /^Bearer +(\S+) *$/i;

/** The client's address, with an IPv4-mapped IPv6 address written as plain IPv4. */
function clientIp(req: Request): string | undefined {
  return req.ip?.startsWith('::ffff:') && req.ip.includes('.') ? req.ip.slice(7) : req.ip;
}

function unauthorizedMessage(header: string | undefined, secret: string | undefined): string {
  if (header === undefined) return 'A valid API key is required (Authorization: Bearer sk_…).';
  if (secret === undefined)
    return 'The Authorization header must be the word Bearer, a space and the API key (Authorization: Bearer sk_…).';
  return 'The API key is invalid, revoked or expired, or its user is inactive.';
}

/**
 * 401 for a missing or rejected key (counted against the client IP's budget, and
 * recorded as `auth.failed` while that budget lasts), 429 past the key's budget.
 */
export function authenticator(deps: {
  /** The key whose secret this is, checked against the request's state versions (api-keys). */
  authenticate: (
    secret: string,
  ) => Promise<{ ok: true; key: CallerKey } | { ok: false; reason: string }>;
  rateLimits: RateLimitStore;
  /** Records a rejected key in the audit log (the secret itself is never recorded). */
  recordAuthFailure: (request: {
    ip: string | undefined;
    userAgent: string | undefined;
    traceId: string | undefined;
    reason: string;
  }) => Promise<void>;
}): (req: Request, res: Response) => Promise<Authenticated & { secret: string }> {
  return async (req, res) => {
    const header = req.get('authorization');
    const secret = header === undefined ? undefined : BEARER.exec(header)?.[1];
    const result = secret === undefined ? undefined : await deps.authenticate(secret);
    if (!result?.ok) {
      await enforceRateLimit(deps.rateLimits, res, `ip:${req.ip}`, ANONYMOUS_LIMIT);
      if (header !== undefined) {
        await deps.recordAuthFailure({
          ip: clientIp(req),
          userAgent: req.get('user-agent'),
          traceId: res.locals.traceId,
          reason: result?.reason ?? 'malformed',
        });
      }
      throw new ApiError('unauthorized', unauthorizedMessage(header, secret));
    }
    const { key } = result;
    await enforceRateLimit(deps.rateLimits, res, `key:${key.id}`, key.rateLimitPerMinute);
    const actor: RequestActor = {
      keyId: key.id,
      principal: key.principal,
      isRoot: key.isRoot,
      ip: clientIp(req),
      userAgent: req.get('user-agent'),
      ...(res.locals.traceId !== undefined ? { traceId: res.locals.traceId } : {}),
    };
    return { key, actor, secret: secret as string };
  };
}

/** 403 when the key's principal may not call the operation (the root key may call any). */
export function authorizer(
  /** The decision on the stored policies (policies). */
  decide: (request: Omit<AccessRequest, 'roles'>) => Promise<{ allowed: boolean }>,
): (
  req: Request,
  auth: Authenticated,
  rule: AccessRule & object,
  params: Record<string, string>,
) => Promise<void> {
  return async (req, { key }, rule, params) => {
    if (key.isRoot || 'checkedBy' in rule) return;
    const resource = resourceOf(rule, params);
    const decision = await decide({
      principal: key.principal,
      action: rule.action,
      resource,
      context: { ip: clientIp(req), time: new Date() },
    });
    if (!decision.allowed)
      throw new ApiError('forbidden', `This key may not ${rule.action} on ${resource}.`);
  };
}
