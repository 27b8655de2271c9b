import {
  knownTypes,
  PipelineRouter,
  sentFoldStep,
  StatusSamples,
  Target,
  type Clock,
  type Logger,
  type ProcStatus,
  type RouterStep,
} from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { createMaintenanceJobs, type MaintenanceJobs } from "../jobs/maintenance-schedule.js";
import { createReliableHost, type ReliableHost } from "../reliable/reliable-host.js";
import { reliableSteps } from "../reliable/reliable-steps.js";
import { createTaskHost, type TaskHost } from "../tasks/task-host.js";
import { taskSteps } from "../tasks/task-steps.js";
import type { AppParts } from "./app-parts.js";
import { failpointFromEnv } from "./failpoints.js";
import { messageHandling, type MessageHandling } from "./message-handling.js";
import { createMetrics } from "./metrics.js";
import { requestSteps } from "./request-steps.js";
import { statusSamplerStep } from "./status-sampler.js";
import type { StepContext } from "./step-context.js";
import { otelTracer } from "../tracing/otel-tracer.js";

/** The pipeline's metrics and the hosted services', rendered as one exposition. */
export type ExchangeMetrics = ReturnType<typeof createMetrics>;

/** The router over the runner's parts, and what the HTTP layer reads beside it. */
export interface ExchangeRouter {
  readonly router: PipelineRouter;
  readonly metrics: ExchangeMetrics;
  /** The maintenance jobs (the admin API reads `SCHD_SNAP_LOG` through their store). */
  readonly maintenance: MaintenanceJobs;
  /** The hosted reliable-message service (its steps are the router's when `reliable.enabled`). */
  readonly reliable: ReliableHost;
  /** The hosted task service, when `tasks.enabled` (its steps are then the router's). */
  readonly tasks?: TaskHost;
  /** This runner's status gauges, one per minute (`GET /admin/status/history`), filled by its status-sampler step. */
  readonly samples: StatusSamples;
}

/**
 * Builds the pipeline router from the configuration: the pipeline's own steps over the parts, then
 * the runner's (maintenance jobs, the request coordinator, the reliable relay and recovery, the
 * task relay and dispatch when `tasks.enabled`, the status sampler). A type policy the processors
 * cannot serve refuses (CONFIG) before any part is used.
 */
export function createExchangeRouter(parts: AppParts, config: MsgxConfig, logger: Logger, clock: Clock): ExchangeRouter {
  const handling = messageHandling(config);
  const context: StepContext = { parts, config, logger, clock };
  const reliable = createReliableHost(context);
  const tasks = config.tasks.enabled ? createTaskHost(context) : undefined;
  const maintenance = createMaintenanceJobs(context, { ...(config.reliable.enabled ? { reliable: reliable.service } : {}), ...(tasks ? { tasks: parts.tasks } : {}) });
  const metrics = exchangeMetrics(context, handling, maintenance, reliable, tasks);
  const router = pipelineRouter(context, handling, metrics);
  metrics.watchLeaderMemory(() => router.leaderMemory);
  metrics.watchSpeculations(() => router.speculations);
  const samples = new StatusSamples();
  for (const step of runnerSteps(context, { maintenance, reliable, tasks, samples })) router.add(step);
  void parts.leadershipLost?.then((why) => router.leadershipLost(why));
  return { router, metrics, maintenance, reliable, samples, ...(tasks ? { tasks } : {}) };
}

/** The pipeline's metrics, with the hosted services' (when they run) in the same exposition. */
function exchangeMetrics(context: StepContext, handling: MessageHandling, maintenance: MaintenanceJobs, reliable: ReliableHost, tasks: TaskHost | undefined): ExchangeMetrics {
  const { parts, config, clock } = context;
  const pipeline = createMetrics(parts.status, clock, () => maintenance.reconcilerCounts(), knownTypes(handling.codec.typePolicy, handling.codec.referenceTypes));
  return {
    ...pipeline,
    render: async () => {
      const own = await pipeline.render();
      const hosted = [...(config.reliable.enabled ? [await reliable.metrics.render()] : []), ...(tasks ? [await tasks.metrics.render()] : [])];
      return { contentType: own.contentType, body: [own.body, ...hosted].join("\n") };
    },
  };
}

/** The router over the pipeline's own steps (intake, pump, delivery, schd flush, backfill), from `pipeline.*` and the message handling. */
function pipelineRouter(context: StepContext, handling: MessageHandling, metrics: ExchangeMetrics): PipelineRouter {
  const { parts, config, logger, clock } = context;
  const { policy } = handling;
  const p = config.pipeline;
  const failpoint = failpointFromEnv();
  const topics = targetTopics(config);
  return new PipelineRouter(
    {
      store: parts.store,
      mailbox: parts.mailbox,
      outbox: parts.outbox,
      delivery: parts.delivery,
      clock,
      logger,
      decode: handling.decode,
      processors: handling.processors,
      contentHash: handling.contentHash,
      pause: handling.pause,
      ...(failpoint ? { failpoint } : {}),
      // Through the OpenTelemetry API: spans are exported only where an SDK is registered
      // (`tracing.enabled`, or a test's in-memory exporter); an ingress trace is passed on regardless.
      tracer: otelTracer(),
      onProcessed: (step) => {
        metrics.recordProcessed(step.records.map((r) => ({ status: r.status as ProcStatus, errorClass: r.errorClass, latencyMs: clock.now() - r.receivedAt })));
        metrics.recordWarnings(step.warnings ?? []);
        metrics.recordTypeOutcomes(step.records);
      },
    },
    {
      pollIntervalMs: p.pollIntervalMs,
      backfillSweepMs: config.jobs.backfillSweepMs,
      intake: { batchSize: p.claimBatch, gapGraceMs: p.gapGraceMs },
      pump: {
        policy,
        unsupported: handling.unsupported,
        identity: handling.identity,
        maxRun: p.maxRun,
        memory: {
          openDays: p.memoryOpenDays,
          airportUtcOffsetMinutes: config.airport.utcOffsetMinutes,
          dayStartOffsetMinutes: config.airport.dayStartOffsetMinutes,
          maxFlights: p.memoryFlights,
          maxIdentities: p.memoryIdentities,
        },
        pipelined: p.pipelinedSteps,
        backfill: { delayMs: p.backfillDelayMs, maxBatch: p.backfillBatch },
        maxRecordBytes: config.kafka.maxRecordBytes,
        ...(parts.fence !== undefined ? { fence: parts.fence } : {}),
      },
      // The outbox reads and marks run beside the broker's sends (docs/delivery.md).
      delivery: {
        topics,
        batchSize: config.delivery.batchSize,
        policy: { ...policy, maxAttempts: config.delivery.maxAttempts },
        pipelined: true,
        markDelayMs: config.delivery.markDelayMs,
      },
      schd: { topics, intervalMs: config.schd.flushPeriodMs, flushAt: config.schd.flushLimit, batchLimit: config.schd.flushLimit },
    },
  );
}

/** The steps the runner adds to the pipeline's: maintenance jobs, upstream requests, the hosted services' steps, the status sampler, the fold of sent marks. */
function runnerSteps(
  context: StepContext,
  hosted: { readonly maintenance: MaintenanceJobs; readonly reliable: ReliableHost; readonly tasks: TaskHost | undefined; readonly samples: StatusSamples },
): RouterStep[] {
  const { parts, config, clock } = context;
  const services = [...(config.reliable.enabled ? reliableSteps(context, hosted.reliable) : []), ...(hosted.tasks ? taskSteps(context, hosted.tasks) : [])];
  return [...hosted.maintenance.steps, ...requestSteps(context), ...services, statusSamplerStep(parts.status, hosted.samples, clock), sentFoldStep(parts.outbox)];
}

/** The topic of each delivery target, from the configuration. */
export function targetTopics(config: MsgxConfig): Readonly<Record<string, string>> {
  return { [Target.MSG]: config.kafka.msgTopic, [Target.SCHD]: config.kafka.schdTopic, [Target.REF]: config.kafka.refTopic };
}
