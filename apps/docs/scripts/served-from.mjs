// Two changes to how the built page starts, both made in the browser at view time so that the
// file stays one static, cacheable, precompressed build:
// - Redoc renders in the browser only. Its build prerenders the page for a history router at
//   `/` (links like `/section/conventions`, a 404 once opened in a new tab), while the page runs
//   a hash router (`#/section/conventions`); hydration keeps the prerendered links. A render in
//   the browser has only the hash links, which work wherever the page is served.
// - The samples show the address the page was served from instead of the spec's default
//   server, when the page is at `<origin>[/<prefix>]/docs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { servedFrom } from './served-from-page.mjs';

const PAGE = 'dist/index.html';
const OPEN = '<div id="redoc">';
const SCRIPT = '\n      <script type="module">';
const DEFINITION = 'const __redoc_definition = ';
const HYDRATE = 'hydrate(__redoc_definition, ';

function replaceOnce(html, search, replacement) {
  if (html.split(search).length !== 2)
    throw new Error(`${PAGE}: expected one ${search}: update this script`);
  return html.replace(search, () => replacement);
}

const spec = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@secadmin/spec/openapi.json'), 'utf8'),
);
const defaultBase = spec.servers[0].variables.baseUrl.default;

let html = readFileSync(PAGE, 'utf8');
const start = html.indexOf(OPEN);
const end = html.indexOf(SCRIPT, start);
if (start < 0 || end < 0 || !html.slice(0, end).endsWith('</div>'))
  throw new Error(
    `${PAGE}: no prerendered <div id="redoc"> before the page's script: update this script`,
  );
const noscript =
  '<noscript>This reference needs JavaScript. The OpenAPI document it renders is at /openapi.json.</noscript>';
html = `${html.slice(0, start)}${OPEN}</div>${noscript}${html.slice(end)}`;
html = replaceOnce(html, DEFINITION, `${servedFrom.toString()}\n      ${DEFINITION}`);
html = replaceOnce(
  html,
  HYDRATE,
  `hydrate(servedFrom(__redoc_definition, ${JSON.stringify(defaultBase)}), `,
);
writeFileSync(PAGE, html);
