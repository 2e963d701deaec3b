import type { ApiKey } from '@secadmin/db';

export type ApiKeyRow = ApiKey;
