import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on right now, picked by the OS. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
