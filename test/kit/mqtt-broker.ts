/**
 * A real MQTT broker (aedes) in the test's process, on a loopback port: what hummingbot and the bridge both connect to.
 * It can require a username and password, be stopped (the port then refuses connections) and started again on the
 * same port, as a broker restarted or unreachable would be.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';

export class TestBroker {
  private broker?: Aedes;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly credentials?: { username: string; password: string }) {}

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const broker = await Aedes.createBroker();
    if (this.credentials) {
      const { username, password } = this.credentials;
      broker.authenticate = (_client, given, secret, callback) => {
        if (given === username && secret?.toString() === password) return callback(null, true);
        const error = Object.assign(new Error('bad username or password'), { returnCode: 4 });
        callback(error as never, false);
      };
    }
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      broker.handle(socket);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as { port: number }).port;
    this.broker = broker;
    this.server = server;
    return this;
  }

  /** Closes every connection and the port: clients see the connection lost, and then refused. */
  async stop(): Promise<void> {
    const { broker, server } = this;
    this.broker = undefined;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
    if (broker) await new Promise<void>((resolve) => broker.close(() => resolve()));
  }
}
