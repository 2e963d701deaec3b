/** The process exit codes, documented in the README. */
export const EXIT = {
  ok: 0,
  failure: 1,
  drift: 2,
  /** `logs verify`: the audit log (or an export of it) failed verification. */
  invalid: 3,
  usage: 64,
} as const;

/** A failure the CLI reports as one message and an exit code, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}
