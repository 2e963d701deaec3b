import { Command } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { registerKeyCommands } from './commands/keys.js';
import { registerLogCommands } from './commands/logs.js';
import { registerPolicyCommands } from './commands/policies.js';
import { registerSimulateCommand } from './commands/simulate.js';
import { registerStreamCommands } from './commands/streams.js';
import { registerUserCommands } from './commands/users.js';

/** Every command and option of `secadmin`, parsed with exit overrides (main.ts reports errors). */
export function buildProgram(): Command {
  const program = new Command('secadmin')
    .description(
      'secadmin from the command line: policies as code, users, API keys, audit logs, log streams',
    )
    .option('--url <url>', 'the server, e.g. http://localhost:3000 (default: $SECADMIN_URL)')
    .option('--api-key <key>', 'an API key secret (default: $SECADMIN_API_KEY)')
    .option('--json', 'print JSON instead of tables')
    .version(packageJson.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for the command')
    .showHelpAfterError();
  registerPolicyCommands(program);
  registerSimulateCommand(program);
  registerUserCommands(program);
  registerKeyCommands(program);
  registerLogCommands(program);
  registerStreamCommands(program);
  const overrideExits = (command: Command) => {
    command.exitOverride();
    for (const sub of command.commands) overrideExits(sub);
  };
  overrideExits(program);
  return program;
}
