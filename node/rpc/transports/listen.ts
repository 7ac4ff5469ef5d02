import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';

/** An endpoint could not be opened (port in use, no permission, no such interface, bad IPC path). */
export class ListenError extends Error {
  readonly listener: string;
  constructor(listener: string, message: string) {
    super(message);
    this.name = 'ListenError';
    this.listener = listener;
  }
}

/** Binds a server and resolves with the bound port; a bind failure rejects with Besu's wording. */
export function listenOn(server: Server, host: string, port: number, listener: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onListenError = (e: Error): void => reject(new ListenError(listener, `Failed to bind ${listener} listener to ${host}:${port}: ${e.message}`));
    server.once('error', onListenError);
    server.listen(port, host, () => {
      server.off('error', onListenError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
