import { StreamVerifier, type StreamVerifierOptions } from '@secadmin/api-client';
import type { Command } from 'commander';
import { commandContext, type GlobalOptions } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { port, positiveInteger } from '../options.js';
import { createOutput } from '../output.js';
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
}

export function registerStreamCommands(program: Command): void {
  const streams = program
    .command('streams')
    .description('log streams: push the audit log to a SIEM or a webhook, and receive one');

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
        out,
      });
      out.note(`listening on ${receiver.url}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
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
