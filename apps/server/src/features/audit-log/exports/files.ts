import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Where export files are kept: the data dir (embedded database) or PostgreSQL. */
export interface ExportFiles {
  /** Starts an export's file afresh: a resumed export starts over. */
  create(id: string, format: string): Promise<ExportFileWriter>;
  /** A completed export's file, piece by piece; undefined when it is not there. */
  read(id: string, format: string): Promise<AsyncIterable<Buffer> | undefined>;
  remove(id: string, format: string): Promise<void>;
  /** What all stored export files take together, the ones being written included. */
  usedBytes(): Promise<number>;
}

export interface ExportFileWriter {
  write(chunk: Buffer): Promise<void>;
  /** Puts the file in place for downloads. */
  finish(): Promise<void>;
  /** Removes what was written. */
  discard(): Promise<void>;
}

/** `<data dir>/exports/<id>.<format>`, written as `….partial` and renamed when complete. */
export class DataDirExportFiles implements ExportFiles {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'exports');
  }

  async create(id: string, format: string): Promise<ExportFileWriter> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = this.path(id, format);
    const partial = `${path}.partial`;
    const out = createWriteStream(partial, { mode: 0o600 });
    // A write error (ENOSPC) surfaces at the next write or at finish, never unhandled.
    let failure: Error | undefined;
    out.on('error', (error) => {
      failure = error;
    });
    const check = () => {
      if (failure) throw failure;
    };
    return {
      write: async (chunk) => {
        check();
        if (out.write(chunk)) return check();
        // The wait that loses the race must let go of its listeners: an export waits for many drains.
        const settled = new AbortController();
        try {
          await Promise.race([
            once(out, 'drain', { signal: settled.signal }),
            once(out, 'close', { signal: settled.signal }),
          ]);
        } finally {
          settled.abort();
        }
        check();
      },
      finish: async () => {
        check();
        out.end();
        await once(out, 'close');
        check();
        await rename(partial, path);
      },
      discard: async () => {
        out.destroy();
        await rm(partial, { force: true });
      },
    };
  }

  async read(id: string, format: string): Promise<AsyncIterable<Buffer> | undefined> {
    const file = await open(this.path(id, format)).catch(() => undefined);
    return file?.createReadStream();
  }

  async remove(id: string, format: string): Promise<void> {
    await rm(this.path(id, format), { force: true });
  }

  async usedBytes(): Promise<number> {
    const names = await readdir(this.dir).catch(() => []);
    const sizes = await Promise.all(
      names.map((name) =>
        stat(join(this.dir, name)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    return sizes.reduce((a, b) => a + b, 0);
  }

  private path(id: string, format: string): string {
    return join(this.dir, `${id}.${format}`);
  }
}
