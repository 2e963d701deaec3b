import type { ComponentType } from 'react';

/** A view of the console: its address `/console/<path>`, its label in the menu, its code. */
export interface ViewDefinition {
  path: string;
  label: string;
  /** Loaded when the view is first opened, so the first page load carries only the shell. */
  load: () => Promise<{ default: ComponentType }>;
}

/** The menu, in order; the first is where `/console` opens. One line per view. */
export const views: ViewDefinition[] = [
  { path: 'logs', label: 'Audit log', load: () => import('./audit-log/AuditLogView.js') },
  { path: 'exports', label: 'Exports', load: () => import('./exports/ExportsView.js') },
  { path: 'policies', label: 'Policies', load: () => import('./policies/PoliciesView.js') },
  { path: 'playground', label: 'Playground', load: () => import('./playground/PlaygroundView.js') },
  { path: 'users', label: 'Users', load: () => import('./users/UsersView.js') },
  { path: 'api-keys', label: 'API keys', load: () => import('./api-keys/ApiKeysView.js') },
  {
    path: 'log-streams',
    label: 'Log streams',
    load: () => import('./log-streams/LogStreamsView.js'),
  },
];
