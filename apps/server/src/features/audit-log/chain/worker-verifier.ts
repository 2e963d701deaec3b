import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type {
  Checkpoint,
  RedactionProof,
  VerifierItem,
  VerifierOptions,
  VerifierReply,
  VerifierRequest,
  VerifyResult,
} from '@secadmin/log-chain';

/**
 * The worker loads the package's CommonJS build by path: the same file whether the server runs
 * from its build or from source under the test runner (which a worker thread has no loader for).
 */
const WORKER_SOURCE = `const { parentPort, workerData } = require('node:worker_threads');
require(workerData.logChain).serveChainVerifier(parentPort);`;
const LOG_CHAIN = createRequire(import.meta.url).resolve('@secadmin/log-chain');

/**
 * A `ChainVerifier` on a worker thread of its own: hashing, canonicalization and signature
 * checks, the CPU of a walk, run off the event loop. One request at a time is answered, in
 * order; `close` ends the thread.
 */
export class WorkerChainVerifier {
  private readonly waiting: { resolve(reply: VerifierReply): void; reject(error: Error): void }[] =
    [];
  private ended: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: VerifierReply) => this.waiting.shift()?.resolve(reply));
    worker.on('error', (error) => this.end(error));
    worker.on('exit', (code) => this.end(new Error(`the verifier thread exited (${code})`)));
  }

  /** Throws with the reason when the keys do not chain to the pinned one, as `ChainVerifier.create`. */
  static async create(options: VerifierOptions): Promise<WorkerChainVerifier> {
    const verifier = new WorkerChainVerifier(
      new Worker(WORKER_SOURCE, { eval: true, workerData: { logChain: LOG_CHAIN } }),
    );
    try {
      await verifier.request({ create: options });
    } catch (error) {
      await verifier.close();
      throw error;
    }
    return verifier;
  }

  /** The thread the checks run on. */
  get threadId(): number {
    return this.worker.threadId;
  }

  /** The next links in seq order; resolves to false once the chain failed. */
  async add(items: VerifierItem[]): Promise<boolean> {
    const reply = await this.request({ add: items });
    return 'failed' in reply && !reply.failed;
  }

  /** The ids of the entries checked so far whose absent fields no record walked names yet. */
  async unaccounted(): Promise<string[]> {
    const reply = await this.request({ unaccounted: true });
    if (!('unaccounted' in reply)) throw new Error('the verifier thread sent no ids');
    return reply.unaccounted;
  }

  /** `user.deleted` entries from outside the walk with their proofs, as `ChainVerifier.addRedactions`. */
  async addRedactions(proofs: RedactionProof[]): Promise<boolean> {
    const reply = await this.request({ redactions: proofs });
    return 'failed' in reply && !reply.failed;
  }

  async finish(): Promise<VerifyResult> {
    const reply = await this.request({ finish: true });
    if (!('result' in reply)) throw new Error('the verifier thread sent no result');
    return reply.result;
  }

  async close(): Promise<void> {
    this.ended ??= new Error('the verifier was closed');
    await this.worker.terminate();
  }

  private request(request: VerifierRequest): Promise<VerifierReply> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise<VerifierReply>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(request);
    }).then((reply) => {
      if ('error' in reply) throw new Error(reply.error);
      return reply;
    });
  }

  private end(error: Error): void {
    this.ended ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.ended);
  }
}
