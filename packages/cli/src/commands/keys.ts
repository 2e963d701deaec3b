import type { ApiKey, ApiKeyCreate } from '@secadmin/api-client';
import { type Command, Option } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { instant, positiveInteger } from '../options.js';

const KEY_COLUMNS = ['id', 'name', 'principal', 'plan', 'rateLimitPerMinute', 'expiresAt'];

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('list')
    .description("list the API keys this key may see (a non-root key: its principal's own)")
    .action(async (_options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const rows: ApiKey[] = [];
      for await (const key of client.paginate('/v1/api-keys', { limit: 100 })) rows.push(key);
      out.result(rows, () => out.table(rows, KEY_COLUMNS));
    });

  keys
    .command('create')
    .description('create a key; its secret is shown this once')
    .requiredOption('--name <name>', 'a name to recognize the key by')
    .requiredOption('--principal <principal>', 'user:<id>, role:<id> or service:<name>')
    .addOption(
      new Option('--plan <plan>', 'the rate-limit plan').choices(['free', 'pro', 'enterprise']),
    )
    .option(
      '--rate-limit <perMinute>',
      'requests per minute (with --plan enterprise)',
      positiveInteger,
    )
    .option('--expires-at <instant>', 'when the key stops working, ISO 8601', instant)
    .action(
      async (
        options: {
          name: string;
          principal: string;
          plan?: ApiKeyCreate['plan'];
          rateLimit?: number;
          expiresAt?: string;
        },
        command: Command,
      ) => {
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        const key = await client.apiKeys.create({
          name: options.name,
          principal: options.principal,
          ...(options.plan ? { plan: options.plan } : {}),
          ...(options.rateLimit !== undefined ? { rateLimitPerMinute: options.rateLimit } : {}),
          ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
        });
        out.result(key, () => {
          out.table([key], KEY_COLUMNS);
          out.line(`secret (shown once): ${key.secret}`);
        });
      },
    );

  keys
    .command('revoke')
    .description('revoke a key: it answers 401 from now on')
    .argument('<id>', 'the key id, key_…')
    .action(async (id: string, _options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      await client.apiKeys.delete(id);
      out.result({ revoked: id }, () => out.line(`revoked ${id}`));
    });
}
