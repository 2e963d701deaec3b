import { join } from 'node:path';
import {
  type components,
  SecadminApiError,
  type SecadminClient,
  type SimulationResult,
} from '@secadmin/api-client';
import { CliError } from '../errors.js';
import { isRecord, listFolder, type PolicyFile, readDocument } from './files.js';
import { problemLines } from './validate.js';

type Check = components['schemas']['SimulationCheck'];
const BATCH_SIZE = 100;
const TEST_EXTENSIONS = /\.ya?ml$/;

/** One expectation of a test file: a check and the decision it must get. */
export interface TestCase {
  file: string;
  index: number;
  name: string | undefined;
  check: Check;
  expect: 'allow' | 'deny';
}

export interface TestOutcome {
  test: TestCase;
  result: SimulationResult;
  passed: boolean;
}

/** Reads `<dir>/tests/*.yaml`: `checks: [{ name?, principal, action, resource, context?, attributes?, expect }]`. */
export async function readTestCases(dir: string): Promise<TestCase[]> {
  const testsDir = join(dir, 'tests');
  const names = (await listFolder(testsDir)).filter((name) => TEST_EXTENSIONS.test(name)).sort();
  const cases: TestCase[] = [];
  for (const name of names) {
    const file = `tests/${name}`;
    const document = await readDocument(join(testsDir, name), file);
    if (!isRecord(document) || !Array.isArray(document.checks))
      throw new CliError(`${file}: expected "checks:", a list of checks`);
    document.checks.forEach((entry: unknown, index) => {
      cases.push(toTestCase(entry, file, index));
    });
  }
  return cases;
}

function toTestCase(entry: unknown, file: string, index: number): TestCase {
  const where = `${file} check #${index + 1}`;
  if (!isRecord(entry)) throw new CliError(`${where}: not an object`);
  const { name, expect, ...check } = entry;
  if (expect !== 'allow' && expect !== 'deny')
    throw new CliError(`${where}: "expect" must be allow or deny`);
  for (const field of ['principal', 'action', 'resource'])
    if (typeof check[field] !== 'string') throw new CliError(`${where}: "${field}" is required`);
  return {
    file,
    index,
    name: typeof name === 'string' ? name : undefined,
    check: check as unknown as Check,
    expect,
  };
}

/** Runs every case against the folder's policies alone (`useStored: false`), 100 checks a call. */
export async function runTests(
  client: SecadminClient,
  policies: readonly PolicyFile[],
  cases: readonly TestCase[],
): Promise<TestOutcome[]> {
  const draftPolicies = policies.map(({ policy }) => policy);
  const outcomes: TestOutcome[] = [];
  for (let start = 0; start < cases.length; start += BATCH_SIZE) {
    const batch = cases.slice(start, start + BATCH_SIZE);
    let results: SimulationResult[];
    try {
      ({ results } = await client.policies.simulateBatch({
        checks: batch.map((test) => test.check),
        draftPolicies,
        useStored: false,
        explain: true,
      }));
    } catch (error) {
      throw namedByFile(error, policies, batch);
    }
    batch.forEach((test, i) => {
      const result = results[i] as SimulationResult;
      outcomes.push({ test, result, passed: result.allowed === (test.expect === 'allow') });
    });
  }
  return outcomes;
}

// The server names `body.draftPolicies[i].<field>` and `body.checks[i].<field>`: say which file that is.
function namedByFile(
  error: unknown,
  policies: readonly PolicyFile[],
  batch: readonly TestCase[],
): unknown {
  if (!(error instanceof SecadminApiError) || error.details.length === 0) return error;
  const lines = problemLines(error, policies, (field) => {
    const check = /checks\[(\d+)\]\.?(.*)$/.exec(field);
    const test = check ? batch[Number(check[1])] : undefined;
    return check && test
      ? `${test.file} check #${test.index + 1}: ${check[2] || 'check'}`
      : undefined;
  });
  return new CliError(`${error.message}\n${lines.join('\n')}`);
}

/** How one case is named in the report. */
export function describeCase(test: TestCase): string {
  const { principal, action, resource } = test.check;
  const label = test.name ? ` "${test.name}"` : '';
  return `${test.file} check #${test.index + 1}${label}: ${principal} ${action} ${resource}`;
}
