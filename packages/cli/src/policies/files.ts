import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import type { PolicyCreate } from '@secadmin/api-client';
import { CliError, usageError } from '../errors.js';

const POLICY_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** One policy file of a folder; `file` is relative to the folder, for messages. */
export interface PolicyFile {
  file: string;
  policy: PolicyCreate;
}

/** A problem of one file, in words for people (a YAML error may span several lines). */
export interface FileProblem {
  file: string;
  text: string;
}

/**
 * Reads every YAML/JSON file directly in `dir` (not `tests/`), one policy (a create body) each,
 * by file name, and what is wrong with the folder before the server sees it: files that do not
 * parse or hold no object, and names used twice. The server checks the policies' fields
 * (`validateFolder`), so that one report holds every problem.
 */
export async function readPolicyFolder(
  dir: string,
): Promise<{ files: PolicyFile[]; problems: FileProblem[] }> {
  const names = (await listFolder(dir))
    .filter((name) => POLICY_EXTENSIONS.has(extname(name)))
    .sort();
  const files: PolicyFile[] = [];
  const problems: FileProblem[] = [];
  for (const name of names) {
    let policy: unknown;
    try {
      policy = await readDocument(join(dir, name), name);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      problems.push({ file: name, text: error.message });
      continue;
    }
    if (isRecord(policy)) files.push({ file: name, policy: policy as unknown as PolicyCreate });
    else problems.push({ file: name, text: `${name}: not a policy (a YAML or JSON object)` });
  }
  const seen = new Map<string, string>();
  for (const { file, policy } of files) {
    if (typeof policy.name !== 'string') continue;
    const other = seen.get(policy.name);
    if (other)
      problems.push({
        file,
        text: `${file}: policy name "${policy.name}" is also used by ${other}`,
      });
    else seen.set(policy.name, file);
  }
  return { files, problems };
}

/**
 * Reads one YAML or JSON file (JSON is YAML); `label` names it in errors. A file that does not
 * parse is a `CliError` naming each error with its line, column and the lines around it.
 */
export async function readDocument(path: string, label = path): Promise<unknown> {
  // Imported here: the YAML parser is the largest part of the CLI's start, and most commands
  // read no file.
  const { parseDocument } = await import('yaml');
  const document = parseDocument(await readFile(path, 'utf8'));
  if (document.errors.length > 0)
    throw new CliError(document.errors.map((error) => yamlError(label, error.message)).join('\n'));
  try {
    return document.toJS();
  } catch (error) {
    throw new CliError(`${label}: ${(error as Error).message}`);
  }
}

/** `label: <message> at line L, column C:` and then the excerpt the yaml library shows, indented. */
function yamlError(label: string, message: string): string {
  const [head, ...excerpt] = message.trimEnd().split('\n');
  return [
    `${label}: ${head}`,
    ...excerpt.filter((line) => line.trim()).map((line) => `    ${line}`),
  ].join('\n');
}

export async function listFolder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function requireFolder(dir: string): Promise<void> {
  try {
    await readdir(dir);
  } catch {
    throw usageError(`${dir}: not a readable folder`);
  }
}

export function relativeTo(dir: string, path: string): string {
  return relative(dir, path) || path;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
