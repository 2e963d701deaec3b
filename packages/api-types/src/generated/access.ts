// Generated from spec/dist/openapi.json by scripts/generate-access.mjs: do not edit.

/** Operations that take no API key (`x-secadmin-access: public` or `token`). */
export type KeylessOperationId =
  | 'downloadExport'
  | 'getApiReference'
  | 'getAuthzenConfiguration'
  | 'getConsole'
  | 'getConsoleAsset'
  | 'getConsoleView'
  | 'getFavicon'
  | 'getHealth'
  | 'getOpenApiDocument'
  | 'getReadiness';
