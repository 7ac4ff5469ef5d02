import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Binds a server and resolves with the bound port; a bind failure rejects with Besu's wording. */
export function listenOn(server: Server, host: string, port: number, listener: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onListenError = (e: Error): void => reject(new Error(`Failed to bind ${listener} listener to ${host}:${port}: ${e.message}`));
    server.once('error', onListenError);
    server.listen(port, host, () => {
      server.off('error', onListenError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
