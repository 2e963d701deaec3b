import type { Command } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { printDecision } from '../explanation.js';
import { applyPlan, printPlan, readStoredPolicies } from '../policies/apply.js';
import { readPolicyFolder, requireFolder } from '../policies/files.js';
import { planChanges } from '../policies/plan.js';
import { describeCase, readTestCases, runTests } from '../policies/tests.js';
import { invalidFolder, validateFolder } from '../policies/validate.js';

interface ApplyOptions {
  prune?: boolean;
  yes?: boolean;
  dryRun?: boolean;
}

export function registerPolicyCommands(program: Command): void {
  const policies = program.command('policies').description('policies as code: plan, apply, test');

  policies
    .command('apply')
    .description(
      'validate every file of a folder (nothing is applied if one is invalid), compare them with the stored policies by name, print the plan, apply it with --yes',
    )
    .argument('<dir>', 'folder of YAML/JSON policy files, one policy each')
    .option('--prune', 'delete stored policies that no file names')
    .option('--yes', 'apply the plan')
    .option(
      '--dry-run',
      'only print the plan; exit 2 when there are changes, 0 when none, 1 when a file is invalid',
    )
    .action(async (dir: string, options: ApplyOptions, command: Command) => {
      if (options.yes && options.dryRun)
        throw new CliError('--yes and --dry-run exclude each other', EXIT.usage);
      await requireFolder(dir);
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const { files, problems } = await readPolicyFolder(dir);
      await validateFolder(client, files, problems);
      const names = new Set(files.map(({ policy }) => policy.name));
      const stored = await readStoredPolicies(client, names);
      const steps = planChanges(files, stored, options.prune ?? false);
      out.result({ steps }, () => printPlan(steps, out));
      if (steps.length === 0) return;
      if (options.dryRun) process.exitCode = EXIT.drift;
      else if (options.yes) await applyPlan(client, steps, out);
      else out.note('Nothing applied: run again with --yes to apply this plan.');
    });

  policies
    .command('test')
    .description("run <dir>/tests/*.yaml against the folder's policies alone (batch simulation)")
    .argument('<dir>', 'folder of policy files with a tests/ folder')
    .action(async (dir: string, _options: object, command: Command) => {
      await requireFolder(dir);
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const { files, problems } = await readPolicyFolder(dir);
      if (problems.length > 0) throw invalidFolder(problems, 'no check was run');
      const cases = await readTestCases(dir);
      if (cases.length === 0) throw new CliError(`${dir}: no checks in tests/*.yaml`);
      const outcomes = await runTests(client, files, cases);
      const failed = outcomes.filter((outcome) => !outcome.passed);
      out.result(
        outcomes.map(({ test, result, passed }) => ({
          file: test.file,
          check: test.index + 1,
          name: test.name,
          ...test.check,
          expect: test.expect,
          decision: result.decision,
          passed,
          explanation: passed ? undefined : result.explanation,
        })),
        () => {
          for (const { test, result } of failed) {
            out.line(`FAIL ${describeCase(test)}`);
            out.line(`     expected ${test.expect}, got ${result.decision}`);
            printDecision(result, out, '     ');
          }
          out.line(`${outcomes.length - failed.length} passed, ${failed.length} failed`);
        },
      );
      if (failed.length > 0) process.exitCode = EXIT.failure;
    });
}
