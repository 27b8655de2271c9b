import type { FastifySchemaCompiler, FastifyTypeProvider } from "fastify";
import { QUEUE_NAME } from "@msgx/reliable";
import { z } from "zod";
import { HttpError } from "./http-error.js";

/** Route schemas are zod schemas: handlers see the parsed output, typed. */
export interface ZodTypeProvider extends FastifyTypeProvider {
  readonly validator: this["schema"] extends z.ZodType ? z.output<this["schema"]> : unknown;
  readonly serializer: this["schema"] extends z.ZodType ? z.input<this["schema"]> : unknown;
}

const PARTS: Readonly<Record<string, string>> = { params: "path", querystring: "query", body: "body", headers: "header" };

/**
 * fastify's validator compiler over zod: the parsed (transformed) value replaces the raw one, and
 * a refusal is a 400 naming the part and the first problem ("query afterFlid: …").
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data: unknown) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    const issue = result.error.issues[0]!;
    const where = [PARTS[httpPart ?? ""] ?? httpPart, issue.path.join(".")].filter(Boolean).join(" ");
    return { error: new HttpError(400, `${where}: ${issue.message}`) };
  };

/** A decimal integer in `[min, max]` written with digits only: `1e3`, `0x10`, ` 7` and `-1` are refused. */
export const decimal = (min: number, max: number = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d{1,16}$/, "must be a decimal integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** A decimal id as text (ids wider than a double stay exact). */
export const decimalId = z.string().regex(/^\d{1,18}$/, "must be a decimal id");

/**
 * What no stored text holds: C0 controls and DEL (PostgreSQL refuses NUL outright), U+FFFD (what a
 * byte that is not UTF-8, `%FF`, decodes to) and a UTF-16 surrogate without its pair.
 */
const UNSAFE_TEXT = /[\u0000-\u001f\u007f\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Every path or query text a route hands to a store (an id, a key, a filter): 1 to `max`
 * characters, none of them a control character or the leftover of bytes that are not UTF-8. A
 * refusal is a 400 naming the parameter (`path id: …`), never the store's error.
 */
export const routeText = (max = 256) =>
  z
    .string()
    .min(1, "is empty")
    .max(max, `is longer than ${max} characters`)
    .refine((s) => !UNSAFE_TEXT.test(s), "holds a control character (NUL …) or bytes that are not UTF-8");

/** A text that names something (a reference type or key, an asset): also no `/`, `\\`, and not `.` or `..`. */
export const routeName = (max = 256) => routeText(max).refine((s) => !/[/\\]/.test(s) && s !== "." && s !== "..", "must not hold / or \\ nor be . or ..");

/** A reliable-message queue: core's `QUEUE_NAME` (Kafka's topic characters), and never `.` or `..`. */
export const routeQueue = routeName(100).refine((s) => QUEUE_NAME.test(s), `is not a queue name (${QUEUE_NAME.source})`);
