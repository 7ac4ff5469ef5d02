/**
 * Start-up failures that come from the configuration (an unreadable or invalid genesis, a port in
 * use, a database another process holds) become one-line usage errors naming the option or file.
 */
import { GenesisError } from '../chain/genesis.ts';
import { StoredHistoryError } from '../chain/stored-rules.ts';
import { ListenError } from '../rpc/transports/listen.ts';
import { UsageError } from './usage-error.ts';

const OPTION_OF_LISTENER: Record<string, string> = {
  'Ethereum JSON-RPC': '--rpc-http-port',
  Websocket: '--rpc-ws-port',
  'GraphQL HTTP': '--graphql-http-port',
  IPC: '--Xrpc-ipc-path',
  Metrics: '--metrics-port',
  P2P: '--p2p-port',
};

/** The usage error for a configuration failure, or the error itself when it is something else. */
export function asConfigError(err: unknown, context: { genesisFile?: string; dataPath?: string } = {}): unknown {
  if (err instanceof UsageError) return err;
  if (err instanceof GenesisError || err instanceof StoredHistoryError) return new UsageError(`--genesis-file${context.genesisFile ? ` ${context.genesisFile}` : ''}: ${err.message}`);
  if (err instanceof ListenError) return new UsageError(`${OPTION_OF_LISTENER[err.listener] ?? err.listener}: ${err.message}`);
  const code = (err as { code?: unknown } | null)?.code;
  if (context.dataPath !== undefined && (code === 'LEVEL_DATABASE_NOT_OPEN' || code === 'LEVEL_LOCKED' || code === 'EACCES' || code === 'EROFS'))
    return new UsageError(`--data-path ${context.dataPath}: cannot open the node's database (${describe(err)}); is another node using this data path?`);
  return err;
}

function describe(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  const text = err instanceof Error ? err.message : String(err);
  return cause instanceof Error ? `${text}: ${cause.message}` : text;
}
