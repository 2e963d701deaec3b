// Copies bench/results/latest.md into the README between the bench markers.
import { readFile, writeFile } from 'node:fs/promises';

const readme = new URL('../../README.md', import.meta.url);
const latest = (await readFile(new URL('../results/latest.md', import.meta.url), 'utf8')).replace(
  /^# .*\n\n/,
  '',
);
const text = await readFile(readme, 'utf8');
const updated = text.replace(
  /<!-- bench:start -->[\s\S]*<!-- bench:end -->/,
  `<!-- bench:start -->\n${latest.trim()}\n<!-- bench:end -->`,
);
await writeFile(readme, updated);
