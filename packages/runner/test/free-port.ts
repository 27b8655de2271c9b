import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The lowest port the kernel hands to outgoing connections (Linux's ip_local_port_range; 32768 elsewhere).
 * A port the OS picks with listen(0) lies above it, so between the test closing it and a service binding
 * it later, any outgoing connection on the machine may take it as its local port — and a client that keeps
 * dialling a port nobody listens on yet may even connect to itself there (TCP simultaneous open). One CI
 * run lost its broker this way ("Address already in use" on the port the runner had been dialling).
 */
function ephemeralFloor(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

async function listenable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on now, for a service a test starts later or a dependency that must
 * refuse. It is drawn below the ephemeral range, so no outgoing connection can occupy it meanwhile; only
 * another explicit bind could, and the draw is random over ~12,000 ports above the fixed ones the
 * scripts use (PostgreSQL 5432–5434, MariaDB 3306, Kafka 9092/9093 and the cluster's 19092–19293).
 */
export async function freePort(): Promise<number> {
  const floor = 20_000;
  const ceiling = ephemeralFloor();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = floor + Math.floor(Math.random() * (ceiling - floor));
    if (await listenable(port)) return port;
  }
  throw new Error(`freePort: no listenable port in ${floor}..${ceiling - 1} after 200 draws`);
}
