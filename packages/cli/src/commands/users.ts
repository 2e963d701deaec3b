import type { UserListItem } from '@secadmin/api-client';
import type { Command } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const USER_COLUMNS = ['id', 'email', 'name', 'roles', 'createdAt'];

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('manage users');

  users
    .command('list')
    .option('--role <role>', 'only users holding this role')
    .option('--email <email>', 'only the user with this email')
    .action(async (options: { role?: string; email?: string }, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const rows: UserListItem[] = [];
      for await (const user of client.paginate('/v1/users', { limit: 100, ...options }))
        rows.push(user);
      out.result(rows, () => out.table(rows, USER_COLUMNS));
    });

  users
    .command('get')
    .argument('<id>')
    .action(async (id: string, _options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const user = await client.users.get(id);
      out.result(user, () => out.table([user], USER_COLUMNS));
    });

  users
    .command('create')
    .requiredOption('--email <email>')
    .option('--name <name>')
    .option('--role <role>', 'a role to grant (repeatable)', collect)
    .action(
      async (options: { email: string; name?: string; role?: string[] }, command: Command) => {
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        const user = await client.users.create({
          email: options.email,
          ...(options.name ? { name: options.name } : {}),
          ...(options.role ? { roles: options.role } : {}),
        });
        out.result(user, () => out.table([user], USER_COLUMNS));
      },
    );

  users
    .command('delete')
    .argument('<id>')
    .action(async (id: string, _options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      await client.users.delete(id);
      out.result({ deleted: id }, () => out.line(`deleted ${id}`));
    });
}
