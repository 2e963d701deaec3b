import { MAX_COUNT } from './lists.js';
import { GROUP_SCHEMA, USER_SCHEMA } from './representation.js';

/** What the service provider supports (RFC 7643 §5). */
export const serviceProviderConfig = (base: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  documentationUri: 'https://github.com/secadmin/secadmin/blob/main/docs/scim.md',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'API key',
      description: 'A secadmin API key as a bearer token: Authorization: Bearer sk_…',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

const resourceType = (base: string, name: 'User' | 'Group', schema: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: name,
  name,
  endpoint: `/${name}s`,
  schema,
  meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${name}` },
});

export const resourceTypes = (base: string) => [
  resourceType(base, 'User', USER_SCHEMA),
  resourceType(base, 'Group', GROUP_SCHEMA),
];

const attribute = (
  name: string,
  type: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const reference = (name: string, referenceTypes: string[], mutability: string) =>
  attribute(name, 'complex', {
    multiValued: true,
    mutability,
    subAttributes: [
      attribute('value', 'string', { mutability: 'immutable' }),
      attribute('display', 'string', { mutability: 'readOnly' }),
      attribute('$ref', 'reference', { referenceTypes, mutability: 'immutable' }),
    ],
  });

export const schemas = (base: string) => [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: USER_SCHEMA,
    name: 'User',
    description: 'A secadmin user; userName is its email.',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId', 'string', { caseExact: true, uniqueness: 'server' }),
      attribute('name', 'complex', {
        subAttributes: [
          attribute('formatted', 'string'),
          attribute('givenName', 'string'),
          attribute('familyName', 'string'),
        ],
      }),
      attribute('displayName', 'string'),
      attribute('emails', 'complex', {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string'),
          attribute('type', 'string', { canonicalValues: ['work'] }),
          attribute('primary', 'boolean'),
        ],
      }),
      attribute('active', 'boolean'),
      attribute('password', 'string', { mutability: 'writeOnly', returned: 'never' }),
      reference('groups', ['Group'], 'readOnly'),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A secadmin role record; its members are the users holding the role.',
    attributes: [
      attribute('displayName', 'string', { required: true }),
      attribute('externalId', 'string', { caseExact: true, uniqueness: 'server' }),
      reference('members', ['User'], 'readWrite'),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` },
  },
];

/** A list of fixed resources (RFC 7644 §4). */
export const listOf = (resources: object[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});
