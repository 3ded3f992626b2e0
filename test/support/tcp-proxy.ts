import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a service (PostgreSQL, Redis) that a test can cut, hang and restore,
 * to play an outage, a partition or a failover without touching the machine's shared service.
 */
export interface TcpProxy {
  readonly port: number;
  /** Drops every open connection and refuses new ones until `restore`. */
  cut(): void;
  /**
   * Keeps every connection open but forwards nothing either way, and accepts new connections
   * without forwarding them: a partition, or a service stopped behind a proxy. `restore` resumes.
   */
  hang(): void;
  restore(): void;
  close(): Promise<void>;
}

/** One client connection and its upstream; forwarding can be paused and resumed. */
interface Link {
  readonly client: Socket;
  upstream: Socket | undefined;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const links = new Set<Link>();
  let state: 'open' | 'cut' | 'hung' = 'open';
  const track = (link: Link, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      link.client.destroy();
      link.upstream?.destroy();
      links.delete(link);
    });
    socket.on('error', () => socket.destroy());
  };
  // Forwarding: pipe resumes both sockets; unpipe and pause leave the bytes unread in the kernel.
  const forward = (link: Link) => {
    if (link.upstream === undefined) {
      link.upstream = connect(targetPort, targetHost);
      track(link, link.upstream);
    }
    link.client.pipe(link.upstream).pipe(link.client);
  };
  const pause = (link: Link) => {
    link.client.unpipe();
    link.upstream?.unpipe();
    link.client.pause();
    link.upstream?.pause();
  };
  const server: Server = createServer((client) => {
    if (state === 'cut') {
      client.destroy();
      return;
    }
    const link: Link = { client, upstream: undefined };
    links.add(link);
    track(link, client);
    if (state === 'open') forward(link);
    else client.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    cut() {
      state = 'cut';
      for (const socket of sockets) socket.destroy();
    },
    hang() {
      state = 'hung';
      for (const link of links) pause(link);
    },
    restore() {
      const wasHung = state === 'hung';
      state = 'open';
      if (wasHung) for (const link of links) forward(link);
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

/** A proxy in front of the service a URL names (`defaultPort` when it names none). */
export function proxyInFrontOf(url: string, defaultPort: number): Promise<TcpProxy> {
  const target = new URL(url);
  return startTcpProxy(target.hostname, Number(target.port || defaultPort));
}
