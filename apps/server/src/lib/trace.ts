/** Runs `work` in a trace span of this name and these attributes (the server's tracing, when on). */
export type Trace = <T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: () => Promise<T>,
) => Promise<T>;
