import { readdirSync, readFileSync } from "node:fs";
import type { ErrorObject, ValidateFunction } from "ajv";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// Both are CommonJS modules whose export is also their own `default`; under NodeNext a default
// import is the module object, so the class and the plugin are its `default`.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** The published schemas (`@msgx/core/schemas/<name>.schema.json`), one per Kafka record value msgx writes. */
export const EVENT_SCHEMAS = ["flight", "reference", "task-event", "task-callback", "reliable-message", "reliable-message-dead-letter"] as const;
export type EventSchemaName = (typeof EVENT_SCHEMAS)[number];

const SCHEMA_DIR = new URL("../../schemas/", import.meta.url);

/** The parsed schema file `packages/core/schemas/<name>.schema.json`. */
export const eventSchema = (name: EventSchemaName): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), "utf8")) as Record<string, unknown>;

/** Every `*.schema.json` file in the schemas folder (to check none is left out of {@link EVENT_SCHEMAS}). */
export const schemaFiles = (): string[] => readdirSync(SCHEMA_DIR).filter((f) => f.endsWith(".schema.json")).sort();

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
