import { DEFAULT_TASK_ROUTING, type TaskRouting } from "./task-routing.js";

/** Where the example's services find PostgreSQL and Kafka, and how they talk. From the environment. */
export interface ExampleConfig {
  /** `MSGX_PG_URL`, default the test database. */
  readonly pgUrl: string;
  /** `MSGX_KAFKA_BROKERS` (comma separated), default `127.0.0.1:9092`. */
  readonly brokers: readonly string[];
  /** `MSGX_TASK_ROUTING=topic-per-owner` for a topic per owner; default one topic with the owner header. */
  readonly routing: TaskRouting;
  /** The task service's schema (`MSGX_TASK_SCHEMA`, default `task_demo`). */
  readonly taskSchema: string;
  /** The LMS service's schema (`MSGX_LMS_SCHEMA`, default `lms_demo`): its own database in production. */
  readonly lmsSchema: string;
  /** The task service's HTTP port (`MSGX_TASK_PORT`, default 8089). */
  readonly taskPort: number;
  /** `MSGX_TASK_CALLBACK=topic`: callbacks on `TASK_CALLBACK_RESULT_TOPIC` instead of HTTP. */
  readonly callbackTopic: string | undefined;
  /** Where LMS sends its callbacks (`MSGX_TASK_URL`, default `http://127.0.0.1:<taskPort>`). */
  readonly taskServiceUrl: string;
}

export function exampleConfig(env: NodeJS.ProcessEnv = process.env): ExampleConfig {
  const taskPort = Number(env["MSGX_TASK_PORT"] ?? 8089);
  const routing: TaskRouting =
    env["MSGX_TASK_ROUTING"] === "topic-per-owner" ? { mode: "topic-per-owner", topicPattern: "{owner}_TASK_EVENT_TOPIC" } : DEFAULT_TASK_ROUTING;
  return {
    pgUrl: env["MSGX_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test",
    brokers: (env["MSGX_KAFKA_BROKERS"] ?? "127.0.0.1:9092")
      .split(",")
      .map((b) => b.trim())
      .filter((b) => b !== ""),
    routing,
    taskSchema: env["MSGX_TASK_SCHEMA"] ?? "task_demo",
    lmsSchema: env["MSGX_LMS_SCHEMA"] ?? "lms_demo",
    taskPort,
    callbackTopic: env["MSGX_TASK_CALLBACK"] === "topic" ? "TASK_CALLBACK_RESULT_TOPIC" : undefined,
    taskServiceUrl: env["MSGX_TASK_URL"] ?? `http://127.0.0.1:${taskPort}`,
  };
}
