// Adds `x-codeSamples` (curl, and TypeScript with @secadmin/api-client) to every operation of
// the bundled dist/openapi.json, built from the spec's own examples, so that the samples in the
// reference cannot drift from the API. The hand-written YAML stays free of them.
import { readFileSync, writeFileSync } from 'node:fs';
import { clientGroup, clientMethodName, refResolver } from './client-names.mjs';

const BUNDLE = 'dist/openapi.json';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

const spec = JSON.parse(readFileSync(BUNDLE, 'utf8'));
const baseUrl = spec.servers[0].variables.baseUrl.default;

const resolve = refResolver(spec);

function clientMethod(operationId, tag) {
  const group = clientGroup(tag);
  return `client.${group}.${clientMethodName(operationId, group)}`;
}

function exampleOf(node) {
  if (node === undefined) return undefined;
  if (node.example !== undefined) return node.example;
  const first = Object.values(node.examples ?? {})[0];
  if (first !== undefined) return resolve(first).value;
  return node.schema ? resolve(node.schema).example : undefined;
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

const shellQuote = (text) => `'${text.replaceAll("'", "'\\''")}'`;

function samples(path, method, pathItem, op) {
  const params = [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
  const value = (param) => {
    const example = exampleOf(param);
    if (example === undefined) fail(`${op.operationId}: parameter ${param.name} has no example`);
    return example;
  };
  const pathParams = params.filter((p) => p.in === 'path');
  // Required query parameters and the page size only: a sample that combined every optional
  // filter's example would find nothing on a real server.
  const query = params.filter((p) => p.in === 'query' && (p.required || p.name === 'limit'));
  const body = resolve(op.requestBody);
  const bodyExample = body && exampleOf(body.content['application/json']);
  if (body && bodyExample === undefined) fail(`${op.operationId}: its request body has no example`);
  const keyed = typeof op['x-secadmin-access'] === 'object';

  const url = new URL(
    path.replace(/\{([^}]+)\}/g, (_, name) =>
      encodeURIComponent(value(pathParams.find((p) => p.name === name))),
    ),
    'http://host',
  );
  for (const param of query) {
    const example = value(param);
    url.searchParams.set(param.name, Array.isArray(example) ? example.join(',') : String(example));
  }
  const curl = [
    `curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} ${shellQuote(`${baseUrl}${url.pathname}${url.search.replaceAll('+', '%20')}`)}`,
    ...(keyed ? ['-H "Authorization: Bearer $SECADMIN_API_KEY"'] : []),
    ...(body
      ? [
          "-H 'Content-Type: application/json'",
          `-d ${shellQuote(JSON.stringify(bodyExample, null, 2))}`,
        ]
      : []),
  ].join(' \\\n  ');

  const args = pathParams.map((p) => JSON.stringify(value(p)));
  if (body) args.push(JSON.stringify(bodyExample, null, 2));
  if (query.length > 0)
    args.push(JSON.stringify(Object.fromEntries(query.map((p) => [p.name, value(p)]))));
  const typescript = [
    "import { createSecadminClient } from '@secadmin/api-client';",
    '',
    'const client = createSecadminClient({',
    `  baseUrl: '${baseUrl}',`,
    ...(keyed ? ['  apiKey: process.env.SECADMIN_API_KEY,'] : []),
    '});',
    `const result = await ${clientMethod(op.operationId, op.tags[0])}(${args.join(', ')});`,
  ].join('\n');

  return [
    { lang: 'curl', label: 'curl', source: curl },
    { lang: 'TypeScript', label: 'TypeScript', source: typescript },
  ];
}

for (const [path, pathItem] of Object.entries(spec.paths)) {
  for (const method of METHODS.filter((m) => pathItem[m])) {
    pathItem[method]['x-codeSamples'] = samples(path, method, pathItem, pathItem[method]);
  }
}
writeFileSync(BUNDLE, `${JSON.stringify(spec, null, 2)}\n`);
