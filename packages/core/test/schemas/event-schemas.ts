import { readdirSync, readFileSync } from "node:fs";
import type { ErrorObject, ValidateFunction } from "ajv";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// Both are CommonJS modules whose export is also their own `default`; under NodeNext a default
// import is the module object, so the class and the plugin are its `default`.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/**
 * The published schemas, one per Kafka record value msgx writes: each in the `schemas` folder of the
 * package that owns the event (`@msgx/core/schemas/flight.schema.json`, `@msgx/tasks/schemas/…`,
 * `@msgx/reliable/schemas/…`).
 */
export const EVENT_SCHEMAS = ["flight", "reference", "task-event", "task-callback", "reliable-message", "reliable-message-dead-letter"] as const;
export type EventSchemaName = (typeof EVENT_SCHEMAS)[number];

/** The package of each schema: the flight exchange's are core's, the products' their own. */
const SCHEMA_PACKAGE: Readonly<Record<EventSchemaName, string>> = {
  flight: "core",
  reference: "core",
  "task-event": "tasks",
  "task-callback": "tasks",
  "reliable-message": "reliable",
  "reliable-message-dead-letter": "reliable",
};
const schemaDir = (pkg: string): URL => new URL(`../../../${pkg}/schemas/`, import.meta.url);

/** The parsed schema file `packages/<package>/schemas/<name>.schema.json`. */
export const eventSchema = (name: EventSchemaName): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`${name}.schema.json`, schemaDir(SCHEMA_PACKAGE[name])), "utf8")) as Record<string, unknown>;

/** Every `*.schema.json` file in the packages' schemas folders (to check none is left out of {@link EVENT_SCHEMAS}). */
export const schemaFiles = (): string[] =>
  [...new Set(Object.values(SCHEMA_PACKAGE))].flatMap((pkg) => readdirSync(schemaDir(pkg)).filter((f) => f.endsWith(".schema.json"))).sort();

let validators: ReadonlyMap<EventSchemaName, ValidateFunction> | undefined;

function validatorOf(name: EventSchemaName): ValidateFunction {
  if (validators === undefined) {
    // strict: an unknown keyword or a typo in a schema fails here rather than validating nothing.
    const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(ajv);
    for (const n of EVENT_SCHEMAS) ajv.addSchema(eventSchema(n));
    validators = new Map(EVENT_SCHEMAS.map((n) => [n, ajv.getSchema(`https://msgx.dev/schemas/${n}.schema.json`)!]));
  }
  return validators.get(name)!;
}

const describeError = (e: ErrorObject): string => `${e.instancePath || "/"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`;

/**
 * Why `value` breaks the schema `name` (empty when it is valid). `value` is the payload, or a
 * record value as read from Kafka (JSON text or a Buffer of it), parsed first.
 */
export function schemaErrors(name: EventSchemaName, value: unknown): string[] {
  const payload = typeof value === "string" || Buffer.isBuffer(value) ? (JSON.parse(value.toString()) as unknown) : value;
  const validate = validatorOf(name);
  return validate(payload) ? [] : (validate.errors ?? []).map(describeError);
}
