import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import type { PolicyCreate } from '@secadmin/api-client';
import { parse } from 'yaml';
import { CliError, usageError } from '../errors.js';

const POLICY_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const POLICY_FIELDS = new Set([
  'name',
  'description',
  'effect',
  'principals',
  'actions',
  'resources',
  'conditions',
]);

/** One policy file of a folder; `file` is relative to the folder, for messages. */
export interface PolicyFile {
  file: string;
  policy: PolicyCreate;
}

/** Reads every YAML/JSON file directly in `dir` (not `tests/`), one policy (a create body) each, by file name. */
export async function readPolicyFolder(dir: string): Promise<PolicyFile[]> {
  const names = (await listFolder(dir))
    .filter((name) => POLICY_EXTENSIONS.has(extname(name)))
    .sort();
  const files: PolicyFile[] = [];
  for (const name of names) {
    const policy = await readDocument(join(dir, name), name);
    if (!isRecord(policy) || typeof policy.name !== 'string')
      throw new CliError(`${name}: not a policy (an object with at least a "name")`);
    const unknown = Object.keys(policy).filter((key) => !POLICY_FIELDS.has(key));
    if (unknown.length > 0) throw new CliError(`${name}: unknown field(s) ${unknown.join(', ')}`);
    files.push({ file: name, policy: policy as unknown as PolicyCreate });
  }
  const seen = new Map<string, string>();
  for (const { file, policy } of files) {
    const other = seen.get(policy.name);
    if (other) throw new CliError(`${file}: policy name "${policy.name}" is also used by ${other}`);
    seen.set(policy.name, file);
  }
  return files;
}

/** Reads one YAML or JSON file (JSON is YAML); `label` names it in errors. */
export async function readDocument(path: string, label = path): Promise<unknown> {
  try {
    return parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CliError(`${label}: ${(error as Error).message.split('\n')[0]}`);
  }
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
