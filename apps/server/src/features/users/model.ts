import type { User } from '@secadmin/db';

export type UserRow = User;
