import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorCode, OperationId } from '@secadmin/api-types';

/** The bundled spec (`spec/dist/openapi.json`): served, and the source of the operation table. */
export type Spec = Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
};

export function loadSpec(): Spec {
  const path = createRequire(import.meta.url).resolve('@secadmin/spec/openapi.json');
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * Who may call an operation, as its `x-secadmin-access` says: a key whose principal the
 * policies allow `action` on `resource` (path parameters in braces filled in), `public`
 * (no key, no rate limit) or `token` (no key: a signed token in the URL; limited per IP).
 * `{checkedBy: service}`: any valid key gets in, and the service checks the rights that depend
 * on the body (a SCIM Group's PATCH: `roles:update` for a rename, `users:grant` for members).
 */
export type AccessRule =
  | { action: string; resource: string }
  | { checkedBy: 'service' }
  | 'public'
  | 'token';

/** One operation of the spec, as the server serves it. */
export interface Operation {
  id: OperationId;
  method: string;
  /** The spec's path template, e.g. `/v1/users/{id}`. */
  path: string;
  access: AccessRule;
  maxBodyBytes: number;
  /**
   * What a body that is not `application/json` gets: 415 `unsupported_media_type`, or what the
   * operation's `x-secadmin-non-json-body` says (AuthZEN's certification wants a 400).
   */
  nonJsonBody: ErrorCode;
  /**
   * Every POST, PATCH and DELETE but those the spec marks `x-secadmin-reads-only` (search,
   * simulations, verify): refused while the disk is low, and only these keep a response under
   * an `Idempotency-Key` (docs/idempotency.md, docs/operations.md).
   */
  writes: boolean;
  /**
   * Whether a POST keeps its response for an `Idempotency-Key`: not where the spec says
   * `x-secadmin-idempotency: false` (SCIM, whose clients retry a create and expect 409).
   */
  idempotent: boolean;
  /** The operation object of the bundled spec (parameters, request body, responses). */
  spec: Record<string, unknown>;
}

export interface RouteMatch {
  operation: Operation;
  params: Record<string, string>;
}

/** docs/errors.md (413): 1 MiB, unless the operation's `x-secadmin-max-body-bytes` says otherwise. */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const WRITING_METHODS = new Set(['put', 'post', 'patch', 'delete']);

export function readOperations(spec: Spec): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const access = operation['x-secadmin-access'] as AccessRule | undefined;
      if (!access) throw new Error(`${method} ${path} has no x-secadmin-access`);
      operations.push({
        id: operation.operationId as OperationId,
        method: method.toUpperCase(),
        path,
        access,
        maxBodyBytes:
          (operation['x-secadmin-max-body-bytes'] as number | undefined) ?? DEFAULT_MAX_BODY_BYTES,
        nonJsonBody:
          (operation['x-secadmin-non-json-body'] as ErrorCode | undefined) ??
          'unsupported_media_type',
        writes: WRITING_METHODS.has(method) && operation['x-secadmin-reads-only'] !== true,
        idempotent: operation['x-secadmin-idempotency'] !== false,
        spec: {
          ...operation,
          parameters: [
            ...((item.parameters as unknown[]) ?? []),
            ...((operation.parameters as unknown[]) ?? []),
          ],
        },
      });
    }
  }
  return operations;
}

/** `users/{id}` with `{id: "user_1"}` → `users/user_1`. */
export function resourceOf(rule: { resource: string }, params: Record<string, string>): string {
  return rule.resource.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');
}

interface Route {
  operation: Operation;
  pattern: RegExp;
  names: string[];
  literalSegments: number;
}

/**
 * Finds the operation a request is for, before its body is read, so that authorization
 * (which needs the operation and its path parameters) comes first. The one router:
 * dispatch, access checks and validation all start from its match.
 */
export class Router {
  private readonly routes: Route[];
  /** First path segments of the operations that need a key (`v1`). */
  private readonly keyedPrefixes: Set<string>;

  constructor(operations: Operation[]) {
    this.routes = operations.map((operation) => {
      const names: string[] = [];
      const segments = operation.path.split('/');
      const source = segments
        .map((segment) =>
          segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
            if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
            names.push(name);
            return '([^/]+)';
          }),
        )
        .join('/');
      // `x-secadmin-trailing-slash`: `/docs/` is `/docs` (a page people type in by hand).
      const slash = operation.spec['x-secadmin-trailing-slash'] === true ? '/?' : '';
      return {
        operation,
        pattern: new RegExp(`^${source}${slash}$`),
        names,
        literalSegments: segments.filter((s) => !s.includes('{')).length,
      };
    });
    // `/v1/policies/simulate` before `/v1/policies/{id}`.
    this.routes.sort((a, b) => b.literalSegments - a.literalSegments);
    this.keyedPrefixes = new Set(
      operations
        .filter((operation) => typeof operation.access === 'object')
        .map((operation) => firstSegment(operation.path)),
    );
  }

  /** HEAD is answered as GET, without the body (Node leaves out a HEAD response's body). */
  match(method: string, path: string): RouteMatch | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const route of this.routes) {
      if (route.operation.method !== wanted) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      try {
        route.names.forEach((name, i) => {
          params[name] = decodeURIComponent(match[i + 1] as string);
        });
      } catch {
        return undefined; // a malformed %-escape names nothing that exists
      }
      return { operation: route.operation, params };
    }
    return undefined;
  }

  /** The methods some operation serves at `path` (for a 405's `Allow`); none for an unknown path. */
  allowedMethods(path: string): string[] {
    const methods = new Set(
      this.routes.filter((route) => route.pattern.test(path)).map((r) => r.operation.method),
    );
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  /** An unknown path among keyed operations is answered like them: key first, then 404. */
  needsKey(path: string): boolean {
    return this.keyedPrefixes.has(firstSegment(path));
  }
}

const firstSegment = (path: string) => path.split('/')[1] ?? '';
