import type { components, operations, paths } from './generated/schema.js';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type ApiError = Schemas['Error'];
export type ErrorCode = ApiError['error']['code'];
export type Pagination = Schemas['Pagination'];

export type User = Schemas['User'];
export type UserListItem = Schemas['UserListItem'];
export type UserCreate = Schemas['UserCreate'];
export type UserUpdate = Schemas['UserUpdate'];

export type Policy = Schemas['Policy'];
export type PolicyListItem = Schemas['PolicyListItem'];
export type PolicyCreate = Schemas['PolicyCreate'];
export type PolicyUpdate = Schemas['PolicyUpdate'];
export type PolicyConditions = Schemas['PolicyConditions'];
export type SimulationRequest = Schemas['SimulationRequest'];
export type SimulationResult = Schemas['SimulationResult'];

export type LogEntry = Schemas['LogEntry'];
export type LogEntryListItem = Schemas['LogEntryListItem'];
export type LogEntryInput = Schemas['LogEntryInput'];
export type SearchRequest = Schemas['SearchRequest'];
export type SearchHit = Schemas['SearchHit'];
export type ExportRequest = Schemas['ExportRequest'];
export type Export = Schemas['Export'];

export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreate = Schemas['ApiKeyCreate'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];

/** Every operation's id, as the server's handler map is keyed. */
export type OperationId = keyof operations;
export type { KeylessOperationId } from './generated/access.js';
