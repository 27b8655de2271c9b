export { runPaymentScenario, scenarioOrders, DEMO_OPTIONS, type ScenarioOptions, type ScenarioOrder, type ScenarioReport } from "./lib/payment-scenario.js";
export { MessageServiceHost, type MessageServiceHostOptions } from "./lib/message-service-host.js";
export { PaymentProducer, paymentChecker, messageIdOf, ProducerCrash, ACCOUNTING_QUEUE, type Order, type ProducerFault } from "./lib/payment-producer.js";
export { AccountingConsumer, type AccountingConsumerOptions } from "./lib/accounting-consumer.js";
export { migrateExample } from "./lib/example-schema.js";
