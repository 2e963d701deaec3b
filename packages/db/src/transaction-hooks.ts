/** A Prisma driver adapter factory, as far as its transactions go. */
export interface AdapterFactory {
  connect(): Promise<{ startTransaction(...args: never[]): Promise<unknown> }>;
}

/**
 * Calls `hook` with each transaction handle the factory's adapters start, before Prisma gets
 * it: the one place where this package wraps what the driver adapters do with transactions.
 */
export function onTransactionStart<F extends AdapterFactory, H>(
  factory: F,
  hook: (handle: H) => void,
): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (...args) => {
      const handle = await start(...args);
      hook(handle as H);
      return handle;
    };
    return adapter;
  };
  return factory;
}
