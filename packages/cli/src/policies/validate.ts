import { SecadminApiError, type SecadminClient } from '@secadmin/api-client';
import { CliError } from '../errors.js';
import type { PolicyFile } from './files.js';

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
 * one bad file is refused whole, each problem named by its file and field.
 */
export async function validateFolder(
  client: SecadminClient,
  files: readonly PolicyFile[],
): Promise<void> {
  for (let start = 0; start < files.length; start += DRAFTS_PER_CALL) {
    const group = files.slice(start, start + DRAFTS_PER_CALL);
    try {
      await client.policies.simulateBatch({
        checks: [PROBE],
        draftPolicies: group.map(({ policy }) => policy),
        useStored: false,
      });
    } catch (error) {
      throw namedByFile(error, group);
    }
  }
}

/** One line per problem; the server names `body.draftPolicies[i].<field>`, this names the file. */
export function problemLines(
  error: SecadminApiError,
  files: readonly PolicyFile[],
  otherField: (field: string) => string | undefined = () => undefined,
): string[] {
  return error.details.map(({ field, message }) => {
    const draft = /draftPolicies\[(\d+)\]\.?(.*)$/.exec(field);
    if (draft) {
      const file = files[Number(draft[1])]?.file ?? field;
      return `  ${file}: ${draft[2] || 'policy'}: ${message}`;
    }
    return `  ${otherField(field) ?? field}: ${message}`;
  });
}

function namedByFile(error: unknown, files: readonly PolicyFile[]): unknown {
  if (!(error instanceof SecadminApiError) || error.details.length === 0) return error;
  return new CliError(
    `The folder is invalid; nothing was applied.\n${problemLines(error, files).join('\n')}`,
  );
}
