#!/usr/bin/env node
import { SecadminApiError, SecadminConnectionError } from '@secadmin/api-client';
import { CommanderError } from 'commander';
import { CliError, EXIT } from './errors.js';
import { buildProgram } from './program.js';

const program = buildProgram();

try {
  await program.parseAsync();
} catch (error) {
  process.exitCode = report(error);
}

function report(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has printed the message or the help already.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliError) {
    process.stderr.write(`secadmin: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof SecadminApiError) {
    const details = error.details.map(({ field, message }) => `\n  ${field}: ${message}`).join('');
    process.stderr.write(
      `secadmin: ${error.status} ${error.code}: ${error.message}${details}${error.requestId ? ` (request ${error.requestId})` : ''}\n`,
    );
    return EXIT.failure;
  }
  if (error instanceof SecadminConnectionError) {
    process.stderr.write(`secadmin: ${error.message}\n`);
    return EXIT.failure;
  }
  throw error;
}
