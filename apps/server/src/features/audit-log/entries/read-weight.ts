/** What the largest entry weighs in a read: 16 KiB of metadata, a 1,024-character User-Agent, the rest. */
export const LARGEST_ENTRY_BYTES = 20 * 1024;

/** Roughly what an entry weighs in a read: its metadata and User-Agent are what vary. */
export const entryReadBytes = (metadata: unknown, userAgent: string | null | undefined) =>
  JSON.stringify(metadata ?? {}).length + (userAgent?.length ?? 0) + 512;
