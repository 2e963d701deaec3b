import type { components, operations, paths } from './generated/schema.js';

/**
 * The API as openapi-typescript generates it: `paths` (by path and method, for openapi-fetch's
 * `createClient<paths>()`), `operations` (by operationId) and `components` (schemas, parameters,
 * responses).
 */
export type { components, operations, paths };

type Schemas = components['schemas'];

/** The body of every error answer: `{ error: { code, message, details? }, meta }`. */
export type ApiError = Schemas['Error'];
/** The machine-readable code of an error, e.g. `not_found`. */
export type ErrorCode = ApiError['error']['code'];
/** A list's `pagination`: `hasMore`, and `nextCursor` to send back as `cursor`. */
export type Pagination = Schemas['Pagination'];

/** A user, with every field. */
export type User = Schemas['User'];
/** A user as a list shows it. */
export type UserListItem = Schemas['UserListItem'];
/** The body that creates a user. */
export type UserCreate = Schemas['UserCreate'];
/** The body that changes a user. */
export type UserUpdate = Schemas['UserUpdate'];

/** An access policy, with every field. */
export type Policy = Schemas['Policy'];
/** A policy as a list shows it. */
export type PolicyListItem = Schemas['PolicyListItem'];
/** The body that creates a policy. */
export type PolicyCreate = Schemas['PolicyCreate'];
/** The body that changes a policy. */
export type PolicyUpdate = Schemas['PolicyUpdate'];
/** A policy's conditions on the request context. */
export type PolicyConditions = Schemas['PolicyConditions'];
/** What the simulator is asked: may this principal do this action on this resource? */
export type SimulationRequest = Schemas['SimulationRequest'];
/** The simulator's answer, and the policies that decided it. */
export type SimulationResult = Schemas['SimulationResult'];

/** An audit log entry, with every field. */
export type LogEntry = Schemas['LogEntry'];
/** An audit log entry as a list shows it. */
export type LogEntryListItem = Schemas['LogEntryListItem'];
/** One entry to ingest. */
export type LogEntryInput = Schemas['LogEntryInput'];
/** A signed checkpoint of the audit log's hash chain: `{seq, hash, signature, createdAt}`. */
export type LogCheckpoint = Schemas['LogCheckpoint'];
export type LogSigningKey = Schemas['LogSigningKey'];
/** The Ed25519 public key that verifies checkpoints (`algorithm`, SPKI PEM `publicKey`). */
export type LogPublicKey = Schemas['LogPublicKey'];
/** What `POST /v1/logs/verify` found: `valid`, `checkedEntries`, the first bad `seq`… */
export type LogVerifyResult = Schemas['LogVerifyResult'];
/** The body of a log search. */
export type SearchRequest = Schemas['SearchRequest'];
/** One entry found by a search, with its highlights. */
export type SearchHit = Schemas['SearchHit'];
/** The body of a log statistics request. */
export type LogStatsRequest = Schemas['LogStatsRequest'];
/** Counts of matching log entries: per time bucket, in total, and per field value (`facets`). */
export type LogStats = Schemas['LogStats'];
/** A field whose values `groupBy` counts: `event`, `result`, `origin`, `actor.id`… */
export type LogStatsField = Schemas['LogStatsField'];
/** The width of a statistics bucket: `1m` … `1d`. */
export type LogStatsInterval = Schemas['LogStatsInterval'];
/** A search answer's `meta`: the exact `totalHits`, and how far the search store goes. */
export type SearchMeta = Schemas['SearchMeta'];
/** A statistics answer's `meta`: how far the search store goes, as for search. */
export type LogStatsMeta = Schemas['LogStatsMeta'];
/** The search store's state: `status`, how far it goes against the sealed head, a rebuild. */
export type SearchIndex = Schemas['SearchIndex'];
/** `ok`, `lagging` or `rebuilding`: the search store's state, also `/readyz`'s `checks.analytics`. */
export type SearchIndexStatus = Schemas['SearchIndexStatus'];
/** A running rebuild of the search store: when it started and how far it has come. */
export type SearchIndexRebuild = Schemas['SearchIndexRebuild'];
/** The body that starts an export. */
export type ExportRequest = Schemas['ExportRequest'];
/** An export: its status and, once complete, its download URL. */
export type Export = Schemas['Export'];

/** An API key, without its secret. */
export type ApiKey = Schemas['ApiKey'];
/** The body that creates an API key. */
export type ApiKeyCreate = Schemas['ApiKeyCreate'];
/** A created API key, with its secret (shown once). */
export type ApiKeyCreated = Schemas['ApiKeyCreated'];

/** A log stream as shown (never its secret or token). */
export type LogStream = Schemas['LogStream'];
/** The body that creates a log stream. */
export type LogStreamCreate = Schemas['LogStreamCreate'];
/** A created log stream, with a webhook's signing secret (shown once). */
export type LogStreamCreated = Schemas['LogStreamCreated'];
/** The fields of a log stream a PATCH changes (`status` pauses or resumes it). */
export type LogStreamUpdate = Schemas['LogStreamUpdate'];
/** Which sealed entries a log stream sends. */
export type LogStreamFilter = Schemas['LogStreamFilter'];
/** One delivery attempt of a log stream. */
export type LogStreamDelivery = Schemas['LogStreamDelivery'];
/** The body of a log stream's webhook message (Standard Webhooks signed). */
export type LogStreamMessage = Schemas['LogStreamMessage'];
/** The body of a log stream's test message. */
export type LogStreamTestMessage = Schemas['LogStreamTestMessage'];

/** Every operation's id, as the server's handler map is keyed. */
export type OperationId = keyof operations;
export type { KeylessOperationId } from './generated/access.js';
