import { readFile } from 'node:fs/promises';
import {
  type LogStream,
  type LogStreamCreate,
  StreamVerifier,
  type StreamVerifierOptions,
  type StreamVerifierState,
} from '@secadmin/api-client';
import type { Command } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { oneOf, port, positiveInteger } from '../options.js';
import { createOutput, type Output } from '../output.js';
import { pinnedKey } from '../public-key.js';
import { startReceiver } from '../stream-receiver.js';

const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

interface ReceiveOptions {
  port: number;
  host: string;
  secret?: string;
  publicKey?: string;
  stream?: string;
  fromSeq?: number;
  filtered?: boolean;
  state?: string;
}

const STREAM_COLUMNS = [
  'id',
  'name',
  'type',
  'url',
  'status',
  'deliveredThroughSeq',
  'lagEntries',
  'lastDeliveryAt',
];

const streamRow = (stream: LogStream) => ({
  ...stream,
  type: stream.destination.type,
  url: stream.destination.url,
});

interface CreateOptions {
  name: string;
  destination: string;
  type: 'webhook' | 'splunk_hec';
  token?: string;
  index?: string;
  sourcetype?: string;
  events?: string[];
  origin?: 'service' | 'api';
  result?: 'success' | 'failure';
  startAt?: LogStreamCreate['startAt'];
  batchSize?: number;
}

/** `now`, `earliest` or a seq to start from. */
function startAt(value: string): NonNullable<LogStreamCreate['startAt']> {
  if (value === 'now' || value === 'earliest') return value;
  return { seq: positiveInteger(value) };
}

const list = (value: string) => value.split(',').map((item) => item.trim());

function printStream(out: Output, stream: LogStream): void {
  const error = stream.lastError;
  out.line(
    [
      `id                    ${stream.id}`,
      `name                  ${stream.name}`,
      `destination           ${stream.destination.type} ${stream.destination.url}`,
      `filter                ${JSON.stringify(stream.filter)}`,
      `status                ${stream.status}`,
      `delivered through seq ${stream.deliveredThroughSeq}`,
      `lag                   ${stream.lagEntries} entries`,
      `last delivery         ${stream.lastDeliveryAt ?? 'never'}`,
      `consecutive failures  ${stream.consecutiveFailures}`,
      `last error            ${
        error ? `${error.at} ${error.httpStatus ?? ''} ${error.message}`.replace('  ', ' ') : 'none'
      }`,
    ].join('\n'),
  );
}

export function registerStreamCommands(program: Command): void {
  const streams = program
    .command('streams')
    .description('log streams: push the audit log to a SIEM or a webhook, and receive one');

  streams
    .command('create')
    .description(
      'create a log stream; for a webhook, its signing secret is shown this once (give it to `streams receive` or your receiver)',
    )
    .requiredOption('--name <name>', 'unique, 1–100 characters')
    .requiredOption(
      '--destination <url>',
      'https://… where messages are POSTed (the Splunk HEC event endpoint for splunk_hec)',
    )
    .option('--type <type>', 'webhook or splunk_hec', oneOf('webhook', 'splunk_hec'), 'webhook')
    .option(
      '--token <token>',
      'splunk_hec: the HEC token (default: $SECADMIN_SPLUNK_TOKEN, which other users cannot see in the process list)',
    )
    .option('--index <index>', 'splunk_hec: the index')
    .option('--sourcetype <sourcetype>', 'splunk_hec: the sourcetype (default secadmin:audit)')
    .option(
      '--events <patterns>',
      'send only these events, comma-separated (* matches any run)',
      list,
    )
    .option(
      '--origin <origin>',
      'send only entries of this origin: service or api',
      oneOf('service', 'api'),
    )
    .option(
      '--result <result>',
      'send only entries with this result: success or failure',
      oneOf('success', 'failure'),
    )
    .option('--start-at <where>', 'now (default), earliest, or a seq', startAt)
    .option(
      '--batch-size <n>',
      'the most entries in one message, 1–1000 (default 100)',
      positiveInteger,
    )
    .action(async (options: CreateOptions, command: Command) => {
      const token = options.token ?? process.env.SECADMIN_SPLUNK_TOKEN;
      const splunk = options.type === 'splunk_hec';
      if (splunk && !token)
        throw usageError('--type splunk_hec needs --token (or SECADMIN_SPLUNK_TOKEN)');
      if (!splunk && (options.token || options.index || options.sourcetype))
        throw usageError('--token, --index and --sourcetype go with --type splunk_hec');
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const filter = {
        ...(options.events ? { events: options.events } : {}),
        ...(options.origin ? { origin: options.origin } : {}),
        ...(options.result ? { result: options.result } : {}),
      };
      const destination: LogStreamCreate['destination'] = splunk
        ? {
            type: 'splunk_hec',
            url: options.destination,
            token: token as string,
            ...(options.index ? { index: options.index } : {}),
            ...(options.sourcetype ? { sourcetype: options.sourcetype } : {}),
          }
        : { type: 'webhook', url: options.destination };
      const created = await client.logStreams.create({
        name: options.name,
        destination,
        ...(Object.keys(filter).length > 0 ? { filter } : {}),
        ...(options.startAt ? { startAt: options.startAt } : {}),
        ...(options.batchSize ? { batchSize: options.batchSize } : {}),
      });
      out.result(created, () => {
        printStream(out, created);
        if (created.secret) out.line(`secret (shown once): ${created.secret}`);
      });
    });

  streams
    .command('list')
    .description('every log stream, oldest first')
    .action(async (_options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const rows: LogStream[] = [];
      for await (const stream of client.paginate('/v1/log-streams', { limit: 100 }))
        rows.push(stream);
      out.result(rows, () => out.table(rows.map(streamRow), STREAM_COLUMNS));
    });

  streams
    .command('status')
    .description(
      'a stream’s health: status, how far it delivered, its lag and last error, and its latest delivery attempts',
    )
    .argument('<id>', 'lst_…')
    .option(
      '--deliveries <n>',
      'how many of the latest attempts to show (at most 100)',
      positiveInteger,
      5,
    )
    .action(async (id: string, options: { deliveries: number }, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const stream = await client.logStreams.get(id);
      const deliveries = (await client.logStreams.listDeliveries(id)).slice(0, options.deliveries);
      out.result({ ...stream, deliveries }, () => {
        printStream(out, stream);
        out.line();
        out.table(
          deliveries.map((d) => ({ ...d, range: `${d.fromSeq}–${d.toSeq}` })),
          ['at', 'range', 'entries', 'attempt', 'httpStatus', 'durationMs', 'error'],
        );
      });
    });

  for (const [name, status, description] of [
    ['pause', 'paused', 'stop sending; resume goes on where it stopped'],
    ['resume', 'active', 'send again from where it stopped (a failing or disabled stream too)'],
  ] as const)
    streams
      .command(name)
      .description(description)
      .argument('<id>', 'lst_…')
      .action(async (id: string, _options: object, command: Command) => {
        const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
        const stream = await client.logStreams.update(id, { status });
        out.result(stream, () => out.line(`${stream.id} is ${stream.status}`));
      });

  streams
    .command('replay')
    .description('send again from a seq on (the receiver gets those messages again)')
    .argument('<id>', 'lst_…')
    .requiredOption('--from-seq <n>', 'the first seq to send again', positiveInteger)
    .action(async (id: string, options: { fromSeq: number }, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const stream = await client.logStreams.replay(id, { fromSeq: options.fromSeq });
      out.result(stream, () =>
        out.line(`${stream.id} goes on from seq ${options.fromSeq} (${stream.status})`),
      );
    });

  streams
    .command('test')
    .description('send one signed test message now and say how it went (exit 1 if not delivered)')
    .argument('<id>', 'lst_…')
    .action(async (id: string, _options: object, command: Command) => {
      const { client, out } = commandContext(command.optsWithGlobals<GlobalOptions>());
      const result = await client.logStreams.test(id);
      out.result(result, () =>
        out.line(
          result.delivered
            ? `delivered: HTTP ${result.httpStatus} in ${result.durationMs} ms`
            : `not delivered${result.httpStatus ? `: HTTP ${result.httpStatus}` : ''}${result.error ? `: ${result.error}` : ''} (${result.durationMs} ms)`,
        ),
      );
      if (!result.delivered) process.exitCode = EXIT.failure;
    });

  streams
    .command('receive')
    .description(
      'a webhook receiver for one log stream (a SIEM stand-in): verifies each message’s signature (401 otherwise) and the chain across messages, prints each message and entry, answers non-2xx and prints INVALID on a break; exits 3 on Ctrl-C if the stream ever broke',
    )
    .requiredOption('--port <port>', 'the port to listen on (0: any free one, printed)', port)
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .option(
      '--secret <whsec>',
      'the stream’s signing secret, whsec_… (default: $SECADMIN_STREAM_SECRET, which other users cannot see in the process list)',
    )
    .option(
      '--public-key <key>',
      'the checkpoint key you expect: a PEM file, a PEM, or a SHA256:<hex> fingerprint (then the keys are fetched from the server and pinned to it) (default: $SECADMIN_PUBLIC_KEY)',
    )
    .option('--stream <id>', 'accept only this stream (default: the first one that arrives)')
    .option('--from-seq <n>', 'the seq the first message must start at', positiveInteger)
    .option(
      '--state <file>',
      'keep the chain’s state in this file (written before each answer) and go on from it after a restart',
    )
    .option(
      '--filtered',
      'the stream has a filter: entries absent from a range are not a gap (links are checked where seqs are consecutive)',
    )
    .action(async (options: ReceiveOptions, command: Command) => {
      const global = command.optsWithGlobals<GlobalOptions>();
      const secret = options.secret ?? process.env.SECADMIN_STREAM_SECRET;
      if (!secret) throw usageError('no secret: pass --secret or set SECADMIN_STREAM_SECRET');
      if (!SECRET.test(secret))
        throw usageError('--secret is not whsec_ followed by standard base64');
      const out = createOutput(global.json ?? false);
      const verifier = await streamVerifier(options, global);
      if (verifier.pinnedKey) out.note(`pinned key ${verifier.pinnedKey}`);
      else
        out.note(
          'warning: no public key: checkpoint signatures are not checked (pass --public-key)',
        );
      const receiver = await startReceiver({
        host: options.host,
        port: options.port,
        secret,
        verifier,
        filtered: options.filtered ?? false,
        ...(options.state ? { stateFile: options.state } : {}),
        out,
      });
      // Listened for before the line that tells a supervisor it may signal: until then Ctrl-C
      // would kill the process without its closing report.
      const stopped = new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      out.note(`listening on ${receiver.url}`);
      await stopped;
      await receiver.close();
      const broken = verifier.break;
      out.note(
        `received through seq ${verifier.deliveredThroughSeq ?? 'none'}${
          broken
            ? `; the stream broke${broken.seq === undefined ? '' : ` at seq ${broken.seq}`}: ${broken.reason}`
            : ''
        }`,
      );
      process.exitCode = broken ? EXIT.invalid : EXIT.ok;
    });
}

async function streamVerifier(
  options: ReceiveOptions,
  global: GlobalOptions,
): Promise<StreamVerifier> {
  const expectedKey = await pinnedKey(options.publicKey ?? process.env.SECADMIN_PUBLIC_KEY);
  const settings: StreamVerifierOptions = {
    ...(options.stream ? { stream: options.stream } : {}),
    ...(options.fromSeq ? { fromSeq: options.fromSeq } : {}),
    ...(options.filtered ? { filtered: true } : {}),
    ...(options.state ? { resume: await savedState(options.state) } : {}),
  };
  if (expectedKey?.startsWith('-----BEGIN')) {
    settings.publicKeyPem = expectedKey;
    settings.expectedKey = expectedKey;
  } else if (expectedKey) {
    // A fingerprint says which key, not what it is: the keys come from the server, pinned to it.
    const { client } = commandContext(global);
    const { publicKey, keys } = await client.logs.getPublicKey();
    settings.publicKeyPem = publicKey;
    if (keys) settings.publicKeys = keys;
    settings.expectedKey = expectedKey;
  }
  try {
    return await StreamVerifier.create(settings);
  } catch (error) {
    throw new CliError(`cannot verify checkpoints: ${(error as Error).message}`, EXIT.invalid);
  }
}

/** The state `--state` saved, if the file exists (a first run starts without one). */
async function savedState(file: string): Promise<StreamVerifierState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw usageError(`cannot read --state ${file}: ${(error as Error).message}`);
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    state = undefined;
  }
  const saved = state as Partial<StreamVerifierState> | undefined;
  if (typeof saved !== 'object' || saved === null || !Array.isArray(saved.pending))
    throw usageError(`--state ${file} is not a state this command saved`);
  return saved as StreamVerifierState;
}
