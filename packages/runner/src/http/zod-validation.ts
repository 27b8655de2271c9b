import type { FastifySchemaCompiler, FastifyTypeProvider } from "fastify";
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
