import type { OperationId } from '@secadmin/api-types';

/** What a non-root key needs to call an operation (decisions.md §3). */
export type AccessRule =
  | { action: string; resource: (params: Record<string, string>) => string }
  | 'public';

const on = (
  action: string,
  resource: string | ((p: Record<string, string>) => string),
): AccessRule => ({
  action,
  resource: typeof resource === 'string' ? () => resource : resource,
});

export const ACCESS_RULES = {
  listUsers: on('users:list', 'users'),
  createUser: on('users:create', 'users'),
  getUser: on('users:read', (p) => `users/${p.id}`),
  updateUser: on('users:update', (p) => `users/${p.id}`),
  deleteUser: on('users:delete', (p) => `users/${p.id}`),
  listPolicies: on('policies:list', 'policies'),
  createPolicy: on('policies:create', 'policies'),
  simulatePolicy: on('policies:simulate', 'policies'),
  getPolicy: on('policies:read', (p) => `policies/${p.id}`),
  updatePolicy: on('policies:update', (p) => `policies/${p.id}`),
  deletePolicy: on('policies:delete', (p) => `policies/${p.id}`),
  listLogs: on('logs:list', 'logs'),
  ingestLogs: on('logs:write', 'logs'),
  searchLogs: on('logs:search', 'logs'),
  createExport: on('logs:export', 'logs'),
  getExport: on('logs:export', (p) => `exports/${p.exportId}`),
  getLog: on('logs:read', (p) => `logs/${p.id}`),
  listApiKeys: on('apikeys:list', 'apikeys'),
  createApiKey: on('apikeys:create', 'apikeys'),
  deleteApiKey: on('apikeys:delete', (p) => `apikeys/${p.id}`),
  // The download token authorizes a download; health, spec and docs are open.
  downloadExport: 'public',
  getHealth: 'public',
  getReadiness: 'public',
  getOpenApiDocument: 'public',
  getApiReference: 'public',
} satisfies Record<OperationId, AccessRule>;
