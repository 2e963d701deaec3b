#!/usr/bin/env node
import { SecadminApiError, SecadminConnectionError } from '@secadmin/api-client';
import { Command, CommanderError } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { registerKeyCommands } from './commands/keys.js';
import { registerLogCommands } from './commands/logs.js';
import { registerPolicyCommands } from './commands/policies.js';
import { registerSimulateCommand } from './commands/simulate.js';
import { registerStreamCommands } from './commands/streams.js';
import { registerUserCommands } from './commands/users.js';
import { CliError, EXIT } from './errors.js';

const program = new Command('secadmin')
  .description(
    'secadmin from the command line: policies as code, users, API keys, audit logs, log streams',
  )
  .option('--url <url>', 'the server, e.g. http://localhost:3000 (default: $SECADMIN_URL)')
  .option('--api-key <key>', 'an API key secret (default: $SECADMIN_API_KEY)')
  .option('--json', 'print JSON instead of tables')
  .version(packageJson.version)
  .showHelpAfterError()
  .exitOverride();

registerPolicyCommands(program);
registerSimulateCommand(program);
registerUserCommands(program);
registerKeyCommands(program);
registerLogCommands(program);
registerStreamCommands(program);
for (const command of program.commands) {
  command.exitOverride();
  for (const sub of command.commands) sub.exitOverride();
}

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
