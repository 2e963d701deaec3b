import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OperationId } from '@secadmin/api-types';

/** The bundled spec (`spec/dist/openapi.json`): served, and used to validate and route. */
export function loadSpec(): Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
} {
  const path = createRequire(import.meta.url).resolve('@secadmin/spec/openapi.json');
  return JSON.parse(readFileSync(path, 'utf8'));
}

export interface MatchedOperation {
  operationId: OperationId;
  params: Record<string, string>;
}

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  literalSegments: number;
  operationId: OperationId;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/**
 * Finds the operation a request is for, before its body is read, so that
 * authorization (which needs the operation and its path parameters) comes first.
 */
export function createOperationMatcher(spec: ReturnType<typeof loadSpec>) {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    const names: string[] = [];
    const segments = path.split('/');
    const source = segments
      .map((segment) =>
        segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
          if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          names.push(name);
          return '([^/]+)';
        }),
      )
      .join('/');
    const literalSegments = segments.filter((s) => !s.includes('{')).length;
    for (const method of METHODS) {
      const operation = item[method] as { operationId?: OperationId } | undefined;
      if (!operation?.operationId) continue;
      routes.push({
        method,
        pattern: new RegExp(`^${source}$`),
        names,
        literalSegments,
        operationId: operation.operationId,
      });
    }
  }
  // `/v1/policies/simulate` before `/v1/policies/{id}`.
  routes.sort((a, b) => b.literalSegments - a.literalSegments);

  return (method: string, path: string): MatchedOperation | undefined => {
    const lower = method.toLowerCase();
    for (const route of routes) {
      if (route.method !== lower) continue;
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
      return { operationId: route.operationId, params };
    }
    return undefined;
  };
}
