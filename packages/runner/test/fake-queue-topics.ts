import type { QueueTopicsPort } from "../src/app/app-parts.js";

/** The broker's topics as a list: `ensure` adds (in order, once each), `down` makes it fail like an unreachable broker. */
export class FakeQueueTopics implements QueueTopicsPort {
  readonly created: string[] = [];
  down = false;
  async ensure(topics: readonly string[]): Promise<void> {
    if (this.down) throw new Error("broker unreachable");
    for (const t of topics) if (!this.created.includes(t)) this.created.push(t);
  }
  async exists(topic: string): Promise<boolean> {
    return this.created.includes(topic);
  }
}
