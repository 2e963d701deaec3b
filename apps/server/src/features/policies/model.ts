import type { Policy } from '@secadmin/db';

export type PolicyRow = Policy;
