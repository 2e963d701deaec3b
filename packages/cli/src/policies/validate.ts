import { SecadminApiError, type SecadminClient } from '@secadmin/api-client';
import { CliError } from '../errors.js';
import type { FileProblem, PolicyFile } from './files.js';

/** The most drafts one batch simulation takes (`BatchSimulationRequest.draftPolicies`). */
const DRAFTS_PER_CALL = 100;
/** Any check will do: the drafts are validated like a create before any check is run. */
const PROBE = {
  principal: 'service:secadmin-cli',
  action: 'policies:validate',
  resource: 'policies',
};

/**
 * Has the server validate every file of the folder as it validates a create, before anything
 * is written: the batch simulator takes the files as drafts and writes nothing. A folder with
 * one bad file is refused whole, with every problem of every file (`problems`, what reading the
 * folder found, and the server's), each named by its file and field.
 */
export async function validateFolder(
  client: SecadminClient,
  files: readonly PolicyFile[],
  problems: readonly FileProblem[] = [],
): Promise<void> {
  const found = [...problems];
  for (let start = 0; start < files.length; start += DRAFTS_PER_CALL) {
    const group = files.slice(start, start + DRAFTS_PER_CALL);
    try {
      await client.policies.simulateBatch({
        checks: [PROBE],
        draftPolicies: group.map(({ policy }) => policy),
        useStored: false,
      });
    } catch (error) {
      if (!(error instanceof SecadminApiError) || error.details.length === 0) throw error;
      found.push(...fileProblems(error, group));
    }
  }
  if (found.length > 0) throw invalidFolder(found, 'nothing was applied');
}

/** The folder's problems, by file name, as one error. */
export function invalidFolder(problems: readonly FileProblem[], consequence: string): CliError {
  const byFile = [...problems].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return new CliError(
    `The folder is invalid; ${consequence}.\n${byFile.map(({ text }) => indent(text)).join('\n')}`,
  );
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

/** One problem per detail; the server names `body.draftPolicies[i].<field>`, this names the file. */
function fileProblems(error: SecadminApiError, files: readonly PolicyFile[]): FileProblem[] {
  return error.details.map(({ field, message }) => {
    const draft = draftProblem(field, message, files);
    return draft ?? { file: field, text: `${field}: ${message}` };
  });
}

/** One line per problem; the server names `body.draftPolicies[i].<field>`, this names the file. */
export function problemLines(
  error: SecadminApiError,
  files: readonly PolicyFile[],
  otherField: (field: string) => string | undefined = () => undefined,
): string[] {
  return error.details.map(
    ({ field, message }) =>
      `  ${draftProblem(field, message, files)?.text ?? `${otherField(field) ?? field}: ${message}`}`,
  );
}

function draftProblem(
  field: string,
  message: string,
  files: readonly PolicyFile[],
): FileProblem | undefined {
  const draft = /draftPolicies\[(\d+)\]\.?(.*)$/.exec(field);
  if (!draft) return undefined;
  const file = files[Number(draft[1])]?.file ?? field;
  return { file, text: `${file}: ${draft[2] || 'policy'}: ${message}` };
}
