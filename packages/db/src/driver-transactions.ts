import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlQuery } from './database.js';

/** What both drivers' transaction handles answer: pg's pool client and PGlite's transaction. */
interface DriverQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface AdapterFactory {
  connect(): Promise<{ startTransaction(...args: never[]): Promise<unknown> }>;
}

/** Where `startTransaction` leaves the driver handle of the transaction it opened. */
interface Opening {
  driver?: DriverQueryable;
}

/**
 * Plain SQL inside a Prisma transaction, on the transaction's own driver connection. Through
 * `$queryRawUnsafe`, Prisma's debug module keeps the parameters of its last 100 calls alive,
 * debugging on or not: an ingest batch stayed reachable long after its request. Wraps the
 * adapter factory so the transaction it starts hands its driver handle to the caller.
 */
export function driverTransactions<F extends AdapterFactory>(factory: F) {
  const opening = new AsyncLocalStorage<Opening>();
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (...args) => {
      const transaction = await start(...args);
      const slot = opening.getStore();
      if (slot) slot.driver = (transaction as { client?: DriverQueryable }).client;
      return transaction;
    };
    return adapter;
  };
  return {
    factory,
    /**
     * Runs `open` (which starts one Prisma transaction and calls `work` in it) and gives `work`
     * the driver's query on that transaction's connection.
     */
    run<T>(open: (work: () => SqlQuery) => Promise<T>): Promise<T> {
      const slot: Opening = {};
      return opening.run(slot, () =>
        open(() => {
          const driver = slot.driver;
          if (typeof driver?.query !== 'function')
            throw new Error('The database adapter did not expose its transaction connection.');
          return async <R>(text: string, params?: unknown[]) =>
            (await driver.query(text, params)).rows as R[];
        }),
      );
    },
  };
}
