/** Who wrote an entry: secadmin itself (`service`) or a client through `POST /v1/logs` (`api`). */
export type LogOrigin = 'service' | 'api';
