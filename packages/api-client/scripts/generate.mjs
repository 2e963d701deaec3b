// Writes what the client derives from the bundled spec and from package.json:
// - src/generated/operations.ts (committed): every operation as a resource method (group from its
//   tag, name from its operationId), with its signature, its JSDoc and how a call maps onto the
//   request. With --check, fails instead when the file is not what the spec generates now, or
//   differs from what git has, like the freshness check of @secadmin/api-types.
// - src/generated/version.ts (not committed, so that `changeset version` alone bumps it). The
//   build writes it too (--version-only, which needs no spec), so that `pnpm --filter … build`
//   works from a fresh clone, where no generate task ran.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { clientGroup, clientMethodName, refResolver } from '@secadmin/spec/client-names';

const SPEC = '../../spec/dist/openapi.json';
const OPERATIONS = 'src/generated/operations.ts';
const VERSION = 'src/generated/version.ts';
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];
/** Names the client object has besides its resource groups. */
const RESERVED = ['request', 'use', 'eject', 'paginate', ...METHODS.map((m) => m.toUpperCase())];

const version = JSON.parse(readFileSync('package.json', 'utf8')).version;
writeIfChanged(VERSION, `export const version = '${version}';\n`);
if (process.argv.includes('--version-only')) process.exit(0);

const spec = JSON.parse(readFileSync(SPEC, 'utf8'));

const resolve = refResolver(spec);

/** What a call resolves to: `data` of `{ data, meta }`, the whole JSON body, nothing, or the Response. */
function returns(responses) {
  const [status, response] = Object.entries(responses).find(([code]) => code.startsWith('2')) ?? [];
  if (status === undefined) fail('an operation without a 2xx response');
  const content = resolve(response).content;
  if (content === undefined) return 'none';
  const types = Object.keys(content);
  if (types.length !== 1 || types[0] !== 'application/json') return 'response';
  const schema = resolve(content['application/json'].schema);
  return schema.properties?.data && !schema.properties.pagination ? 'data' : 'body';
}

function describe(path, method, pathItem, op) {
  const params = [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
  const inPath = params.filter((p) => p.in === 'path').map((p) => p.name);
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  if (pathParams.some((name) => !inPath.includes(name)))
    fail(`${op.operationId}: a path parameter is not described`);
  const query = params.filter((p) => p.in === 'query');
  const body = resolve(op.requestBody);
  const bodySchema = resolve(body?.content?.['application/json']?.schema);
  if (body && !bodySchema) fail(`${op.operationId}: only JSON request bodies are supported`);
  const result = returns(op.responses);
  const cursor = query.some((p) => p.name === 'cursor')
    ? 'query'
    : bodySchema?.properties?.cursor
      ? 'body'
      : null;
  if (cursor && result !== 'body') fail(`${op.operationId}: takes a cursor but answers no page`);
  const tag = op.tags?.[0];
  if (!op.operationId || !tag) fail(`${method} ${path}: needs an operationId and a tag`);
  const group = clientGroup(tag);
  return {
    id: op.operationId,
    tag,
    group,
    name: clientMethodName(op.operationId, group),
    method: method.toUpperCase(),
    path,
    pathParams,
    query: query.length > 0,
    queryRequired: query.some((p) => p.required),
    body: body !== undefined,
    bodyRequired: body?.required === true,
    cursor,
    returns: result,
    summary: op.summary,
    description: op.description,
  };
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

const operations = Object.entries(spec.paths).flatMap(([path, pathItem]) =>
  METHODS.filter((m) => pathItem[m]).map((m) => describe(path, m, pathItem, pathItem[m])),
);

const groups = new Map();
for (const op of operations) groups.set(op.group, [...(groups.get(op.group) ?? []), op]);
for (const [group, ops] of groups) {
  if (RESERVED.includes(group)) fail(`the group ${group} would hide the client's own ${group}`);
  const names = ops.map((op) => op.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) fail(`two operations of ${group} are both named ${twice}`);
}
const pagedPaths = operations.filter((op) => op.cursor).map((op) => op.path);
if (new Set(pagedPaths).size !== pagedPaths.length)
  fail('two cursor-paged operations share a path');

const jsdoc = (indent, ...paragraphs) => {
  const lines = paragraphs
    .filter(Boolean)
    .flatMap((p, i) => [...(i > 0 ? [''] : []), ...p.trim().split('\n')]);
  const pad = ' '.repeat(indent);
  return `${pad}/**\n${lines.map((l) => `${pad} *${l ? ` ${l.replaceAll('*/', '*\\/')}` : ''}`).join('\n')}\n${pad} */\n`;
};

function signature(op) {
  const id = `'${op.id}'`;
  const args = op.pathParams.map((name) => `${name}: PathParams<${id}>['${name}']`);
  if (op.body) args.push(`body${op.bodyRequired ? '' : '?'}: Body<${id}>`);
  if (op.query) args.push(`query${op.queryRequired ? '' : '?'}: Query<${id}>`);
  args.push('options?: RequestOptions');
  const result = {
    data: `Data<${id}>`,
    body: `JsonBody<${id}>`,
    none: 'void',
    response: 'Response',
  }[op.returns];
  const returned = op.cursor
    ? `PagedCall<${result}, PageItem<'${op.path}'>>`
    : `Promise<${result}>`;
  return `${op.name}(${args.join(', ')}): ${returned};`;
}

const tagDescriptions = new Map((spec.tags ?? []).map((t) => [t.name, t.description]));
const entry = (op) =>
  `  ${op.id}: { group: '${op.group}', name: '${op.name}', method: '${op.method}', path: '${op.path}', pathParams: [${op.pathParams.map((p) => `'${p}'`).join(', ')}], query: ${op.query}, body: ${op.body}, cursor: ${op.cursor ? `'${op.cursor}'` : 'null'}, returns: '${op.returns}' },`;

const source = `// Generated by scripts/generate.mjs from spec/dist/openapi.json: do not edit.
import type { OperationId } from '@secadmin/api-types';
import type {
  Body,
  Data,
  JsonBody,
  PathParams,
  Query,
  RequestOptions,
} from '../operation-types.js';
import type { PagedCall } from '../paged-call.js';
import type { PageItem } from '../pagination.js';

/** Every operation: its resource method, and where a call's arguments go in the request. */
export const operations = {
${operations.map(entry).join('\n')}
} as const satisfies Record<OperationId, unknown>;

/**
 * The API's operations as methods, grouped by resource. Arguments come in this order: path
 * parameters, the JSON body, the query, then {@link RequestOptions}. A method resolves to the
 * \`data\` of the answer, and throws a \`SecadminApiError\` for any non-2xx answer. A list or a
 * search is a {@link PagedCall}: awaited, the first page (\`{ data, pagination, meta }\`);
 * iterated with \`for await\`, every item of every page.
 */
export interface Resources {
${[...groups]
  .map(
    ([group, ops]) =>
      `${jsdoc(2, tagDescriptions.get(ops[0].tag) ?? ops[0].tag)}  ${group}: {\n${ops
        .map(
          (op) =>
            `${jsdoc(4, op.summary, op.description, `\`${op.method} ${op.path}\` (\`${op.id}\`)`)}    ${signature(op)}`,
        )
        .join('\n')}\n  };`,
  )
  .join('\n')}
}
`;

if (!process.argv.includes('--check')) {
  writeIfChanged(OPERATIONS, source);
} else if (readFileSync(OPERATIONS, 'utf8') !== source) {
  fail(`${OPERATIONS} is out of date with spec/: run \`pnpm generate\` and commit it.`);
} else if (
  succeeds('git', ['rev-parse', '--is-inside-work-tree']) &&
  !succeeds('git', ['diff', '--quiet', '--', OPERATIONS])
) {
  fail(`${OPERATIONS} was regenerated from a changed spec: review and commit it.`);
} else {
  console.log(`${OPERATIONS} is fresh.`);
}

// Other tasks (a pack, a type-check) may be reading these files meanwhile: rewrite only a change.
function writeIfChanged(file, text) {
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
}

function succeeds(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
