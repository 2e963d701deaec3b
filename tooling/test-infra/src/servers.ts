/** A server this process started for itself, on a spare port of 127.0.0.1 and a temporary directory. */
export interface OwnedServer {
  url: string;
  version: string;
  /** Stops the server, as in an outage: connections are refused until start(). */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  start(): Promise<void>;
  /** Stops it if running and deletes its directory; done at exit if never called. */
  remove(): Promise<void>;
}

/** The server a test run uses: the one the environment names, or one started for the run. */
export interface RunServer {
  url: string;
  /** One line saying which server this is, never a password. */
  summary: string;
  /** Removes the server if it was started for the run. */
  release(): Promise<void>;
}

/** A server the run needs is not installed; the message says how to get it. */
export class NotInstalledError extends Error {}
