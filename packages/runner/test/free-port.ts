import { createServer } from "node:net";

/** A loopback port nothing listens on now (the OS picks it, then it is closed again): for a service a test starts later, or a dependency that must refuse. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
