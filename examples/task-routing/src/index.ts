export { startTaskServiceApp, type TaskServiceApp, type TaskServiceAppOptions, type CallbackFaults } from "./lib/task-service-app.js";
export { startLmsApp, type LmsApp, type LmsAppOptions, type LmsStats } from "./lib/lms-app.js";
export { LMS_HANDLERS, LMS_SLITTER_DOWN_AGV, LMS_STOCK_AREA_CALL_TUBE, slitterDownAgvHandler, stockAreaCallTubeHandler } from "./lib/lms-handlers.js";
export { httpCallbackPort, CALLBACK_ROUTE } from "./lib/http-callback-port.js";
export { runScenario, scenarioTasks, type ScenarioReport, type ScenarioTask } from "./lib/scenario.js";
export { exampleConfig, type ExampleConfig } from "./lib/config.js";
export { probeKafka, kafkaClient } from "./lib/kafka.js";
export { migrateLms, migrateTaskService, openDb } from "./lib/pg.js";
