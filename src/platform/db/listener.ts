import pg from 'pg';

/**
 * What a listener of a channel hears: `listening` once its LISTEN is in place (again, after a
 * reconnection), `lost` when the connection went away (notifications may be missed until the next
 * `listening`), `notified` for each notification on the channel.
 */
export type ListenEvent = 'listening' | 'lost' | 'notified';
export type ListenHandler = (event: ListenEvent) => void;

export interface RemoteListener {
  listen(channel: string, handler: ListenHandler): () => void;
  close(): Promise<void>;
}

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/**
 * PostgreSQL LISTEN on one dedicated connection (a pooled one would be handed to other queries),
 * opened on the first `listen` and reopened with backoff whenever it is lost, so every replica
 * hears what any process NOTIFYs. `server` is the URL, or finds it (the primary of a host list)
 * before each connection. Never throws: while the connection is down, handlers know it
 * from `lost` and must not rely on notifications.
 */
export function createPgListener(server: string | (() => Promise<string>)): RemoteListener {
  const handlers = new Map<string, Set<ListenHandler>>();
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let retryMs = RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | null = null;
  let connecting = false;

  const tell = (channel: string, event: ListenEvent) => {
    for (const handler of handlers.get(channel) ?? []) handler(event);
  };
  const tellAll = (event: ListenEvent) => {
    for (const channel of handlers.keys()) tell(channel, event);
  };
  const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  function lose(lost: pg.Client) {
    if (client !== lost) return;
    client = null;
    const wasListening = listening;
    listening = false;
    lost.end().catch(() => {});
    if (wasListening) tellAll('lost');
    if (closed) return;
    retryTimer = setTimeout(connect, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  async function connect() {
    retryTimer = null;
    if (closed || client || connecting) return;
    let databaseUrl: string;
    connecting = true;
    try {
      databaseUrl = typeof server === 'string' ? server : await server();
    } catch {
      connecting = false;
      if (closed) return;
      retryTimer = setTimeout(connect, retryMs);
      retryTimer.unref();
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      return;
    }
    connecting = false;
    if (closed || client) return;
    // Keepalive probes notice a connection that died silently (no FIN), which LISTEN alone never would.
    const next = new pg.Client({
      connectionString: databaseUrl,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 5000,
    });
    client = next;
    next.on('error', () => lose(next));
    next.on('end', () => lose(next));
    next.on('notification', (message) => tell(message.channel, 'notified'));
    try {
      await next.connect();
      // Channels added while this runs are picked up too: loop until every one is listened to.
      const done = new Set<string>();
      for (let todo = [...handlers.keys()]; todo.length > 0; ) {
        for (const channel of todo) {
          await next.query(`LISTEN ${quoted(channel)}`);
          done.add(channel);
        }
        todo = [...handlers.keys()].filter((channel) => !done.has(channel));
      }
    } catch {
      lose(next);
      return;
    }
    if (client !== next) return;
    listening = true;
    retryMs = RETRY_MIN_MS;
    tellAll('listening');
  }

  return {
    listen(channel, handler) {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        if (listening && client) {
          const current = client;
          current.query(`LISTEN ${quoted(channel)}`).then(
            () => tell(channel, 'listening'),
            () => lose(current),
          );
        }
      } else if (listening) {
        queueMicrotask(() => handler('listening'));
      }
      set.add(handler);
      if (!client && !retryTimer && !closed && !connecting) void connect();
      return () => {
        set.delete(handler);
      };
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = null;
      listening = false;
      await current?.end().catch(() => {});
    },
  };
}
