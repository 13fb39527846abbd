/** Replaces secrets in text bound for the browser or a log line (WEB-8). */
export type Redactor = (text: string) => string;

/** Environment variables whose values are provider credentials. */
export const SECRET_ENV_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GOOGLE_API_KEY',
  'GEMINI_API_KEY',
  'OPENAI_COMPATIBLE_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'CHATFOLD_TOKEN',
];

/** Values shorter than this are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/**
 * A redactor for the given secrets: every occurrence becomes `[redacted]`. Provider errors
 * sometimes echo a key back (a malformed key in a 401 message); this keeps it out of SSE
 * events, error bodies and logs even then.
 *
 * @param secrets the values to hide (API keys, the access token).
 */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const values = [
    ...new Set(secrets.filter((s): s is string => s !== undefined && s.length >= MIN_SECRET_LENGTH)),
  ].sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const value of values) if (out.includes(value)) out = out.replaceAll(value, '[redacted]');
    return out;
  };
}

/** The secrets found in an environment: every {@link SECRET_ENV_VARIABLES} that is set. */
export function secretsFromEnvironment(env: NodeJS.ProcessEnv): string[] {
  return SECRET_ENV_VARIABLES.map((name) => env[name]).filter((v): v is string => v !== undefined);
}
