import { scimHandlers } from './handlers.js';
import { type ScimDeps, ScimService } from './service.js';

/** SCIM 2.0 (`/scim/v2`) over the users and roles services. */
export function createScim(deps: Omit<ScimDeps, 'base'> & { publicUrl: string }) {
  const base = `${deps.publicUrl}/scim/v2`;
  const service = new ScimService({ ...deps, base });
  return { handlers: scimHandlers(service, base) };
}
