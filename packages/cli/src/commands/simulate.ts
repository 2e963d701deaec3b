import type { Command } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { EXIT } from '../errors.js';
import { printDecision } from '../explanation.js';
import { instant } from '../options.js';

interface SimulateOptions {
  principal: string;
  action: string;
  resource: string;
  ip?: string;
  time?: string;
  explain?: boolean;
  failOnDeny?: boolean;
}

export function registerSimulateCommand(program: Command): void {
  program
    .command('simulate')
    .description(
      'ask the stored policies one access question (exit 0 whatever the answer, unless --fail-on-deny)',
    )
    .requiredOption('--principal <principal>', 'user:<id>, role:<id> or service:<name>')
    .requiredOption('--action <action>', 'e.g. users:read')
    .requiredOption('--resource <resource>', 'e.g. users/user_01…')
    .option('--ip <ip>', 'the client IP, for IP conditions')
    .option(
      '--time <instant>',
      'the time of the request, for time conditions (default: now)',
      instant,
    )
    .option('--explain', 'show why each policy did or did not match')
    .option('--fail-on-deny', 'exit 1 when the answer is deny (for scripts and CI)')
    .action(async (options: SimulateOptions, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const context = {
        ...(options.ip ? { ip: options.ip } : {}),
        ...(options.time ? { time: options.time } : {}),
      };
      const result = await client.policies.simulate({
        principal: options.principal,
        action: options.action,
        resource: options.resource,
        ...(Object.keys(context).length > 0 ? { context } : {}),
        explain: options.explain ?? false,
      });
      out.result(result, () => printDecision(result, out));
      if (options.failOnDeny && !result.allowed) process.exitCode = EXIT.failure;
    });
}
