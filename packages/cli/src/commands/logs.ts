import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Export,
  fetchVerificationMaterial,
  type LogEntry,
  type LogEntryListItem,
  type LogStats,
  type LogStatsField,
  type SearchHit,
  type SecadminClient,
  type VerificationMaterial,
  type VerifyResult,
  verifyExport,
} from '@secadmin/api-client';
import { type Command, Option } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { instant, listOf, positiveInteger } from '../options.js';
import { createOutput, type Output } from '../output.js';
import { pinnedKey } from '../public-key.js';

const LOG_COLUMNS = ['timestamp', 'event', 'actor', 'result', 'id'];
const STATS_INTERVALS = ['auto', '1m', '5m', '15m', '1h', '6h', '1d'] as const;
const STATS_FIELDS: readonly LogStatsField[] = [
  'event',
  'result',
  'origin',
  'actor.id',
  'actor.email',
  'actor.type',
  'target.id',
  'target.type',
  'context.ip',
  'context.location.country',
];
/** The widest bar of the histogram, in characters. */
const BAR_WIDTH = 40;

/** The buckets as a table with a bar each, then one table per facet. */
function printStats(out: Output, stats: LogStats): void {
  out.line(`${stats.total} entries, in buckets of ${stats.interval}`);
  const most = Math.max(1, ...stats.buckets.map((bucket) => bucket.count));
  out.table(
    stats.buckets.map(({ start, count }) => ({
      start,
      count,
      '': '#'.repeat(Math.ceil((count / most) * BAR_WIDTH)),
    })),
    ['start', 'count', ''],
  );
  for (const [field, values] of Object.entries(stats.facets ?? {})) {
    out.line();
    out.line(`${field}:`);
    out.table(values ?? [], ['value', 'count']);
  }
}

const logRow = (
  entry: Pick<LogEntryListItem, 'id' | 'timestamp' | 'event' | 'result' | 'actor'>,
) => ({
  ...entry,
  actor: `${entry.actor.type}:${entry.actor.email ?? entry.actor.id ?? ''}`,
});

export function registerLogCommands(program: Command): void {
  const logs = program.command('logs').description('search, follow and export the audit log');

  logs
    .command('search')
    .description(
      'full-text search, newest first (words AND-ed, "phrases", OR, -word, event:, actor:, result:, ip:)',
    )
    .argument('<query>', 'e.g. "login -result:success actor:ada@example.com"')
    .option('--limit <n>', 'at most this many hits', positiveInteger, 50)
    .action(async (query: string, options: { limit: number }, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const hits: SearchHit[] = [];
      for await (const hit of client.paginate('/v1/logs/search', {
        query,
        limit: Math.min(options.limit, 100),
      })) {
        hits.push(hit);
        if (hits.length >= options.limit) break;
      }
      out.result(hits, () => out.table(hits.map(logRow), LOG_COLUMNS));
    });

  logs
    .command('search-index')
    .description('how far the search store holds the log; --rebuild fills it again from the record')
    .option('--rebuild', 'rebuild it from PostgreSQL while search goes on answering')
    .action(async (options: { rebuild?: boolean }, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const index = options.rebuild
        ? await client.logs.rebuildSearchIndex()
        : await client.logs.getSearchIndex();
      out.result(index, () => {
        out.line(`status: ${index.status}`);
        out.line(
          `indexed through seq ${index.indexedThroughSeq} of ${index.sealedThroughSeq} sealed`,
        );
        out.line(`lag: ${index.lagSeconds} s`);
        if (index.rebuild)
          out.line(
            `rebuild: ${index.rebuild.indexedThroughSeq} of ${index.rebuild.targetSeq}, started ${index.rebuild.startedAt}`,
          );
      });
    });

  logs
    .command('stats')
    .description(
      'count matching entries over time (UTC buckets) and the most frequent values of some fields',
    )
    .requiredOption('--from <instant>', 'ISO 8601, inclusive', instant)
    .requiredOption('--to <instant>', 'ISO 8601, exclusive', instant)
    .option('--query <query>', 'only entries this search finds, e.g. "login -result:success"')
    .addOption(
      new Option('--interval <width>', 'bucket width; auto: the narrowest giving at most 200')
        .choices(STATS_INTERVALS)
        .default('auto'),
    )
    .option(
      '--group-by <fields>',
      `count the 10 most frequent values of these fields, comma-separated: ${STATS_FIELDS.join(', ')}`,
      listOf(STATS_FIELDS),
    )
    .action(
      async (
        options: {
          from: string;
          to: string;
          query?: string;
          interval: (typeof STATS_INTERVALS)[number];
          groupBy?: LogStatsField[];
        },
        command: Command,
      ) => {
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        const stats = await client.logs.getStats({
          from: options.from,
          to: options.to,
          interval: options.interval,
          ...(options.query === undefined ? {} : { query: options.query }),
          ...(options.groupBy ? { groupBy: options.groupBy } : {}),
        });
        out.result(stats, () => printStats(out, stats));
      },
    );

  logs
    .command('tail')
    .description('print the newest entries; with -f, keep polling and print new ones once')
    .option('-n, --lines <n>', 'how many of the newest entries to print first', positiveInteger, 20)
    .option('-f, --follow', 'keep polling for new entries')
    .option('--interval <seconds>', 'seconds between polls with -f', positiveInteger, 2)
    .action(
      async (options: { lines: number; follow?: boolean; interval: number }, command: Command) => {
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        await tail(client, out, options);
      },
    );

  const exportCommand = logs
    .command('export')
    .description(
      'export entries to a file; with --wait, wait for it and download it (see also: export get, export download)',
    )
    // Checked in the action, not as required options: commander would demand them of
    // `export get` and `export download` too.
    .option('--from <instant>', 'ISO 8601, inclusive (required)', instant)
    .option('--to <instant>', 'ISO 8601, exclusive (required)', instant)
    .addOption(
      new Option('--format <format>', 'the file format').choices(['json', 'csv']).default('json'),
    )
    .option('--wait', 'wait until the export completes, then download it (needs -o)')
    .option('-o, --output <file>', 'where to write the download')
    .action(
      async (
        options: { from?: string; to?: string; format: string; wait?: boolean; output?: string },
        command: Command,
      ) => {
        if (!options.from || !options.to) throw usageError('logs export needs --from and --to');
        if (options.wait && !options.output) throw usageError('--wait needs -o <file>');
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        const created = await client.exports.create({
          from: options.from,
          to: options.to,
          format: options.format as 'json' | 'csv',
        });
        if (!options.wait || !options.output) {
          out.result(created, () => out.line(`export ${created.exportId} is ${created.status}`));
          return;
        }
        const done = await waitForExport(client, created.exportId);
        await download(client, done, options.output);
        out.result(done, () =>
          out.line(
            `wrote ${done.totalRecords} records (${done.fileSizeBytes} bytes) to ${options.output}`,
          ),
        );
      },
    );

  exportCommand
    .command('get')
    .description('show an export: its status, record count, size and download URL')
    .argument('<exportId>', 'the export id, exp_…')
    .action(async (exportId: string, _options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const current = await client.exports.get(exportId);
      out.result(current, () =>
        out.table(
          [current],
          ['exportId', 'status', 'format', 'totalRecords', 'fileSizeBytes', 'createdAt'],
        ),
      );
    });

  exportCommand
    .command('download')
    .description('download a completed export (with --wait, wait for it first)')
    .argument('<exportId>', 'the export id, exp_…')
    .option('-o, --output <file>', 'where to write the file (required)')
    .option('--wait', 'wait until the export completes')
    .action(async (exportId: string, _options: object, command: Command) => {
      // `export` itself has -o and --wait, so it is the one that parses them: read them merged.
      const options = command.optsWithGlobals<
        GlobalOptions & { output?: string; wait?: boolean }
      >();
      if (!options.output) throw usageError('export download needs -o <file>');
      const { client, out } = commandContext(options);
      const current = options.wait
        ? await waitForExport(client, exportId)
        : await client.exports.get(exportId);
      if (current.status !== 'completed')
        throw new CliError(
          `export ${exportId} is ${current.status}${current.error ? `: ${current.error}` : ''}; nothing downloaded${current.status === 'processing' ? ' (add --wait to wait for it)' : ''}`,
        );
      await download(client, current, options.output);
      out.result(current, () =>
        out.line(
          `wrote ${current.totalRecords} records (${current.fileSizeBytes} bytes) to ${options.output}`,
        ),
      );
    });

  logs
    .command('verify')
    .description(
      'check the hash chain and its signed checkpoints: on the server, or offline for a JSON export (exit 3 when invalid)',
    )
    .option('--from-seq <n>', 'on the server: start at this seq', positiveInteger)
    .option('--to-seq <n>', 'on the server: stop at this seq', positiveInteger)
    .option('--export <file>', 'verify this JSON export offline instead')
    .option(
      '--material <file>',
      'with --export: checkpoints and public key saved by `logs checkpoints -o` (no server needed)',
    )
    .option(
      '--public-key <key>',
      'the public key you expect, pinned outside the server: a PEM file, a PEM, or a SHA256:<hex> fingerprint (default: $SECADMIN_PUBLIC_KEY)',
    )
    .option(
      '--strict',
      'with --export: also fail (exit 3) when no key is pinned, when entries are unsealed, after the last checkpoint or cut off before a checkpoint, or when the export shows no metadata',
    )
    .action(
      async (
        options: {
          fromSeq?: number;
          toSeq?: number;
          export?: string;
          material?: string;
          publicKey?: string;
          strict?: boolean;
        },
        command: Command,
      ) => {
        const global = command.optsWithGlobals<GlobalOptions>();
        if ((options.material || options.strict) && !options.export)
          throw usageError('--material and --strict go with --export');
        if (options.export && (options.fromSeq || options.toSeq))
          throw usageError('--from-seq and --to-seq are for the server; an export is whole');
        const expectedKey = await pinnedKey(options.publicKey ?? process.env.SECADMIN_PUBLIC_KEY);
        const pin = expectedKey ? { expectedKey } : {};
        let result: VerifyResult;
        let out: Output;
        if (options.export) {
          const entries = await readJson<LogEntry[]>(options.export, 'export');
          if (!Array.isArray(entries)) throw usageError(`${options.export} is not a JSON export`);
          let material: VerificationMaterial;
          if (options.material) {
            material = await readJson<VerificationMaterial>(options.material, 'material');
            out = createOutput(global.json ?? false);
          } else {
            const context = commandContext(global);
            material = await fetchVerificationMaterial(context.client);
            out = context.out;
          }
          result = await verifyExport(entries, material, pin);
        } else {
          const context = commandContext(global);
          out = context.out;
          result = await context.client.logs.verify({
            ...(options.fromSeq ? { fromSeq: options.fromSeq } : {}),
            ...(options.toSeq ? { toSeq: options.toSeq } : {}),
          });
          if (expectedKey)
            result = await withServerKeysChecked(context.client, result, expectedKey);
        }
        const strictFailures = options.strict ? strictProblems(result) : [];
        out.result(result, () =>
          out.line(describeVerification(result, expectedKey !== undefined, strictFailures)),
        );
        if (!result.valid || strictFailures.length > 0) process.exitCode = EXIT.invalid;
      },
    );

  logs
    .command('checkpoints')
    .description(
      'save every signed checkpoint and the public key, to verify exports later without the server',
    )
    .requiredOption('-o, --output <file>', 'where to write them (JSON)')
    .action(async (options: { output: string }, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const material = await fetchVerificationMaterial(client);
      await writeFile(options.output, `${JSON.stringify(material, null, 2)}\n`);
      const last = material.checkpoints.at(-1);
      out.result({ checkpoints: material.checkpoints.length, lastSeq: last?.seq ?? null }, () =>
        out.line(
          `wrote ${material.checkpoints.length} checkpoints (last seq ${last?.seq ?? 'none'}) and the public key to ${options.output}`,
        ),
      );
    });
}

/** On the server: every checkpoint it lists must be signed by keys that chain to the pin. */
async function withServerKeysChecked(
  client: SecadminClient,
  result: VerifyResult,
  expectedKey: string,
): Promise<VerifyResult> {
  const keys = await verifyExport([], await fetchVerificationMaterial(client), { expectedKey });
  if (!keys.valid)
    return { ...result, valid: false, reason: keys.reason, pinnedKey: keys.pinnedKey ?? null };
  return { ...result, pinnedKey: keys.pinnedKey ?? null };
}

/** What `--strict` does not let pass in an export whose chain holds. */
function strictProblems(result: VerifyResult): string[] {
  return [
    result.pinnedKey ? '' : 'no public key is pinned',
    result.unsealedEntries ? `${result.unsealedEntries} entries are not sealed` : '',
    result.uncoveredEntries
      ? `${result.uncoveredEntries} entries come after the last checkpoint`
      : '',
    result.truncatedEntries
      ? `the export stops ${result.truncatedEntries} entries before the chain's head`
      : '',
    result.metadataOmitted ? 'the export shows no metadata' : '',
  ].filter((problem) => problem !== '');
}

function describeVerification(
  result: VerifyResult,
  pinned: boolean,
  strictFailures: readonly string[],
): string {
  const key = result.pinnedKey
    ? `pinned key ${result.pinnedKey}\n`
    : pinned || result.pinnedKey === undefined
      ? ''
      : 'warning: no public key pinned: the key in the material was trusted as it is (pin one with --public-key or SECADMIN_PUBLIC_KEY)\n';
  const verdict = describeVerdict(result);
  if (!result.valid || strictFailures.length === 0) return key + verdict;
  return `${key}INVALID under --strict: ${strictFailures.join('; ')}\n(without --strict: ${verdict})`;
}

function describeVerdict(result: VerifyResult): string {
  const checkpoint = `last checkpoint seq ${result.lastCheckpointSeq ?? 'none'}`;
  if (!result.valid)
    return result.firstInvalidSeq === undefined
      ? `INVALID: ${result.reason}`
      : `INVALID at seq ${result.firstInvalidSeq}: ${result.reason} (${result.checkedEntries} entries checked before it, ${checkpoint})`;
  const notes = [
    result.uncoveredEntries
      ? `\nwarning: ${result.uncoveredEntries} entries come after the last checkpoint: no signature covers them yet`
      : '',
    result.unsealedEntries
      ? `\nwarning: ${result.unsealedEntries} entries are not sealed and were not checked`
      : '',
    result.truncatedEntries
      ? `\nwarning: a checkpoint shows ${result.truncatedEntries} more entries after the last one given: the export stops before the chain's head (cut off, or a time range ending earlier)`
      : '',
    result.metadataOmitted
      ? '\nwarning: no entry shows metadata (an export made with includeMetadata: false): whether metadata was stripped cannot be checked'
      : '',
  ];
  const redacted = result.redactedFields
    ? `, ${result.redactedFields} redacted fields accounted for`
    : '';
  return `valid: ${result.checkedEntries} entries checked${redacted}, ${checkpoint}${notes.join('')}`;
}

async function readJson<T>(file: string, what: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read the ${what} file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw usageError(`${file} is not JSON`);
  }
}

async function tail(
  client: SecadminClient,
  out: Output,
  options: { lines: number; follow?: boolean; interval: number },
): Promise<void> {
  const seen = new Set<string>();
  const print = (entries: LogEntryListItem[]) => {
    // The API lists newest first; print oldest first, like tail.
    const fresh = entries.filter((entry) => !seen.has(entry.id)).reverse();
    for (const entry of fresh) {
      seen.add(entry.id);
      const row = logRow(entry);
      if (out.json) out.line(JSON.stringify(entry));
      else out.line(`${row.timestamp}  ${row.event}  ${row.actor}  ${row.result}  ${row.id}`);
    }
  };
  const newest: LogEntryListItem[] = [];
  for await (const entry of client.paginate('/v1/logs', { limit: Math.min(options.lines, 100) })) {
    newest.push(entry);
    if (newest.length >= options.lines) break;
  }
  print(newest);
  while (options.follow) {
    await sleep(options.interval * 1000);
    print(await newestUntilSeen(client, seen));
  }
}

// More than a page may arrive between two polls: read on until an entry already printed.
async function newestUntilSeen(
  client: SecadminClient,
  seen: ReadonlySet<string>,
): Promise<LogEntryListItem[]> {
  const entries: LogEntryListItem[] = [];
  for await (const entry of client.paginate('/v1/logs', { limit: 100 })) {
    if (seen.has(entry.id)) break;
    entries.push(entry);
  }
  return entries;
}

async function waitForExport(client: SecadminClient, exportId: string): Promise<Export> {
  for (;;) {
    const current = await client.exports.get(exportId);
    if (current.status === 'completed') return current;
    if (current.status === 'failed')
      throw new CliError(`export ${exportId} failed: ${current.error ?? 'no reason given'}`);
    await sleep(500);
  }
}

async function download(client: SecadminClient, done: Export, file: string): Promise<void> {
  if (!done.downloadUrl) throw new CliError(`export ${done.exportId} has no download URL`);
  const url = new URL(done.downloadUrl);
  const name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
  const token = url.searchParams.get('token') ?? '';
  const response = await client.exports.download(name, { token });
  if (!response.body) throw new CliError(`export ${done.exportId}: empty download`);
  await pipeline(
    Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
    progress(done.fileSizeBytes),
    createWriteStream(file),
  );
}

/** A `received / total` line on stderr when it is a terminal; a pass-through otherwise. */
function progress(total: number | undefined): Transform {
  let received = 0;
  const tty = process.stderr.isTTY;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (tty) process.stderr.write(`\rdownloading ${received}${total ? ` / ${total}` : ''} bytes`);
      callback(null, chunk);
    },
    flush(callback) {
      if (tty) process.stderr.write('\n');
      callback();
    },
  });
}
