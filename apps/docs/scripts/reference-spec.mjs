// The document the reference renders: the bundled spec, with each operation's access rule
// (`x-secadmin-access`, which Redoc could only show as raw JSON) written as the first sentence
// of its description, and each server's address with its variables' defaults filled in (Redoc
// shows `{baseUrl}` as is; the page then shows the address it was served from). The published
// /openapi.json stays as bundled.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const REFERENCE_SPEC = 'dist/openapi.reference.json';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** `x-secadmin-access` as a reader says it. */
function accessSentence(access) {
  if (access === 'public') return 'Public: no API key.';
  if (access === 'token') return 'Authorized by the signed token in the URL: no API key.';
  if (access?.checkedBy === 'service')
    return 'Any valid API key; the rights each change needs are checked as for its `/v1` twin.';
  if (typeof access?.action === 'string' && typeof access?.resource === 'string') {
    const braces = access.resource.includes('{') ? " (the path's parameters filled in)" : '';
    return `Requires \`${access.action}\` on \`${access.resource}\`${braces}.`;
  }
  throw new Error(
    `x-secadmin-access ${JSON.stringify(access)} has no sentence: update this script`,
  );
}

const bundle = createRequire(import.meta.url).resolve('@secadmin/spec/openapi.json');
const spec = JSON.parse(readFileSync(bundle, 'utf8'));
for (const pathItem of Object.values(spec.paths)) {
  for (const operation of METHODS.map((m) => pathItem[m]).filter(Boolean)) {
    const sentence = `**Access:** ${accessSentence(operation['x-secadmin-access'])}`;
    operation.description = `${sentence}\n\n${operation.description}`;
  }
}
spec.servers = spec.servers.map(({ variables = {}, ...server }) => ({
  ...server,
  url: server.url.replace(/\{(\w+)\}/g, (_, name) => variables[name].default),
}));
mkdirSync('dist', { recursive: true });
writeFileSync(REFERENCE_SPEC, JSON.stringify(spec));
