import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError } from './http-error.ts';

/**
 * Reads a JSON body and validates it (WEB-8: validated at the boundary). Only
 * `application/json` is accepted, which a cross-site form cannot send without a preflight.
 * Errors say the path, what was expected and what was received (`title: expected string, received number`).
 */
export async function parseBody<S extends z.ZodType>(context: Context, schema: S): Promise<z.infer<S>> {
  const type = context.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(
      400,
      'E_INVALID_BODY',
      `expected a JSON body (Content-Type: application/json), received ${type === '' ? 'no Content-Type' : JSON.stringify(type)}`,
    );
  }
  let raw: unknown;
  try {
    const text = await context.req.text();
    raw = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'E_INVALID_BODY', `the body is not valid JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new HttpError(400, 'E_INVALID_BODY', describe(parsed.error));
  return parsed.data;
}

/** Validates the query string (`?query=…&limit=…`) with a schema of strings. */
export function parseQuery<S extends z.ZodType>(context: Context, schema: S): z.infer<S> {
  const parsed = schema.safeParse(context.req.query());
  if (!parsed.success) throw new HttpError(400, 'E_INVALID_QUERY', describe(parsed.error));
  return parsed.data;
}

/** One line per issue: `path: message`. */
function describe(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length === 0 ? 'body' : issue.path.join('.')}: ${issue.message}`)
    .join('; ');
}

/** Session ids in URLs: what stores accept, limited to characters that need no escaping. */
export const sessionIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'expected letters, digits, ".", "_", ":" or "-"');

/** Reads and checks the `:id` path parameter. */
export function sessionIdParam(context: Context): string {
  const parsed = sessionIdSchema.safeParse(context.req.param('id'));
  if (!parsed.success) {
    throw new HttpError(404, 'E_SESSION_NOT_FOUND', `no such session: ${describe(parsed.error)}`);
  }
  return parsed.data;
}
