// Redoc's footer shows Redocly's logo from cdn.redoc.ly, which the page's Content-Security-Policy
// (img-src 'self' data:) blocks, and which would make every visit call a third party. The page
// keeps the attribution, with the logo as a data: URI; any other remote resource fails the build.
import { readFileSync, writeFileSync } from 'node:fs';

const PAGE = 'dist/index.html';
const LOGOS = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': wordmark('Redocly', 64),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': wordmark('R', 12),
};

function wordmark(text, width) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="16" viewBox="0 0 ${width} 16"><text x="0" y="13" font-family="sans-serif" font-size="13" font-weight="bold" fill="#ff6b3d">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

let html = readFileSync(PAGE, 'utf8');
for (const [url, dataUri] of Object.entries(LOGOS)) {
  if (!html.includes(url)) throw new Error(`${PAGE} no longer loads ${url}: update this script`);
  html = html.replaceAll(url, dataUri);
}
// Links may point anywhere; what the page loads (src, stylesheets) must not.
const remote = html.match(
  /\bsrc=["']https?:\/\/[^"']+|\bsrc:`https?:\/\/[^`]+|<link[^>]+href=["']https?:[^"']+/g,
);
if (remote) throw new Error(`${PAGE} loads remote resources: ${remote.join(', ')}`);
writeFileSync(PAGE, html);
