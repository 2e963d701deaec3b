import type { UserListItem, UserUpdate } from '@secadmin/api-client';
import type { Command } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { usageError } from '../errors.js';
import { boolean, collect, jsonObject } from '../options.js';

const USER_COLUMNS = ['id', 'email', 'name', 'roles', 'active', 'createdAt'];

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('manage users');

  users
    .command('list')
    .description('list users, oldest first')
    .option('--role <role>', 'only users holding this role')
    .option('--email <email>', 'only the user with this email')
    .option('--active <true|false>', 'only active, or only inactive, users', boolean)
    .action(
      async (options: { role?: string; email?: string; active?: boolean }, command: Command) => {
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        const rows: UserListItem[] = [];
        for await (const user of client.paginate('/v1/users', { limit: 100, ...options }))
          rows.push(user);
        out.result(rows, () => out.table(rows, USER_COLUMNS));
      },
    );

  users
    .command('get')
    .description('show one user')
    .argument('<id>', 'the user id, user_…')
    .action(async (id: string, _options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const user = await client.users.get(id);
      out.result(user, () => out.table([user], USER_COLUMNS));
    });

  users
    .command('create')
    .description('create a user')
    .requiredOption('--email <email>', 'unique, case-insensitive')
    .option('--name <name>', 'the display name')
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
    .command('update')
    .description('change a user: only the fields given change')
    .argument('<id>', 'the user id, user_…')
    .option('--email <email>', 'a new email')
    .option('--name <name>', 'a new display name')
    .option(
      '--role <role>',
      'the roles the user holds from now on (repeatable; replaces them)',
      collect,
    )
    .option('--no-roles', 'take every role away')
    .option(
      '--metadata <json>',
      'metadata to merge, a JSON object (a key set to null is removed)',
      jsonObject,
    )
    .option(
      '--active <true|false>',
      'false denies the user everything and disables its keys; true lets it act again',
      boolean,
    )
    .action(
      async (
        id: string,
        options: {
          email?: string;
          name?: string;
          role?: string[];
          roles?: boolean;
          metadata?: Record<string, unknown>;
          active?: boolean;
        },
        command: Command,
      ) => {
        if (options.role && options.roles === false)
          throw usageError('--role and --no-roles exclude each other');
        const update: UserUpdate = {
          ...(options.email !== undefined ? { email: options.email } : {}),
          ...(options.name !== undefined ? { name: options.name } : {}),
          ...(options.role ? { roles: options.role } : {}),
          ...(options.roles === false ? { roles: [] } : {}),
          ...(options.metadata ? { metadata: options.metadata } : {}),
          ...(options.active !== undefined ? { active: options.active } : {}),
        } as UserUpdate;
        if (Object.keys(update).length === 0)
          throw usageError(
            'nothing to change: give --email, --name, --role, --no-roles, --metadata or --active',
          );
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        const user = await client.users.update(id, update);
        out.result(user, () => out.table([user], USER_COLUMNS));
      },
    );

  users
    .command('delete')
    .description('delete a user: its keys are revoked and its entries in the audit log redacted')
    .argument('<id>', 'the user id, user_…')
    .action(async (id: string, _options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      await client.users.delete(id);
      out.result({ deleted: id }, () => out.line(`deleted ${id}`));
    });
}
