import type { Command } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { printDecision } from '../explanation.js';

interface SimulateOptions {
  principal: string;
  action: string;
  resource: string;
  ip?: string;
  explain?: boolean;
}

export function registerSimulateCommand(program: Command): void {
  program
    .command('simulate')
    .description('ask the stored policies one access question')
    .requiredOption('--principal <principal>', 'user:<id>, role:<id> or service:<name>')
    .requiredOption('--action <action>', 'e.g. users:read')
    .requiredOption('--resource <resource>', 'e.g. users/user_01…')
    .option('--ip <ip>', 'the client IP, for IP conditions')
    .option('--explain', 'show why each policy did or did not match')
    .action(async (options: SimulateOptions, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const result = await client.policies.simulate({
        principal: options.principal,
        action: options.action,
        resource: options.resource,
        ...(options.ip ? { context: { ip: options.ip } } : {}),
        explain: options.explain ?? false,
      });
      out.result(result, () => printDecision(result, out));
    });
}
