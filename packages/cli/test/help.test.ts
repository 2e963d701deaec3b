import type { Command } from 'commander';
import { expect, it } from 'vitest';
import { buildProgram } from '../src/program.js';

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

it('describes every command, argument and option in its help', () => {
  const missing: string[] = [];
  for (const command of everyCommand(buildProgram())) {
    const name = command.name();
    if (!command.description()) missing.push(`command ${name}`);
    for (const argument of command.registeredArguments)
      if (!argument.description) missing.push(`${name} <${argument.name()}>`);
    for (const option of command.options)
      if (!option.description) missing.push(`${name} ${option.flags}`);
  }
  expect(missing).toEqual([]);
});
