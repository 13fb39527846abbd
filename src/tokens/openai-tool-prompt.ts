/**
 * How OpenAI's chat models see function/tool definitions (TOK-2): not as JSON Schema but as a
 * TypeScript namespace the API writes into the prompt. The layout below is the one the
 * community reverse-engineered by comparing `prompt_tokens` across many requests:
 * hmarr/openai-chat-tokens (`src/functions.ts`, MIT; 36 cases checked against gpt-3.5-turbo)
 * and its port in niieani/gpt-tokenizer (`src/functionCalling.ts`, MIT; 32 cases for gpt-4o).
 * OpenAI's own harmony renderer for gpt-oss (openai/harmony `src/encoding.rs`, Apache-2.0)
 * writes the same namespace, which is where the extensions marked below come from.
 *
 * ```
 * namespace functions {
 *
 * // Get the current weather
 * type get_weather = (_: {
 * // The city
 * city: string,
 * unit?: "celsius" | "fahrenheit",
 * }) => any;
 *
 * } // namespace functions
 * ```
 *
 * Pure string building; the counter encodes the result once per distinct tool set.
 */
import type { JsonValue, ToolDefinition } from '../messages/types.ts';

type Schema = { readonly [key: string]: JsonValue };

const isSchema = (value: JsonValue | undefined): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The properties of an object schema, or none. */
const propertiesOf = (schema: Schema): [string, JsonValue][] =>
  isSchema(schema.properties) ? Object.entries(schema.properties) : [];

/**
 * The prompt text of a list of function definitions, as the API renders them.
 *
 * @param tools - Neutral tool definitions, in request order.
 * @returns The `namespace functions { … }` block (its tokens plus the per-request constant of
 *   the chat format are what the definitions cost).
 */
export function renderFunctionNamespace(tools: readonly ToolDefinition[]): string {
  const lines = ['namespace functions {', ''];
  for (const tool of tools) {
    if (tool.description) lines.push(`// ${tool.description}`);
    // A function without properties takes no argument at all (published cases: `() => any`).
    if (propertiesOf(tool.parameters).length > 0) {
      lines.push(`type ${tool.name} = (_: {`, renderProperties(tool.parameters, 0), '}) => any;');
    } else {
      lines.push(`type ${tool.name} = () => any;`);
    }
    lines.push('');
  }
  lines.push('} // namespace functions');
  return lines.join('\n');
}

/** One line per property (`name?: type,`), a comment line before it for its description. */
function renderProperties(schema: Schema, indent: number): string {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  for (const [name, property] of propertiesOf(schema)) {
    const description = isSchema(property) ? property.description : undefined;
    // Only the top level's descriptions reach the prompt: the published nested cases
    // (description5..8, "Write 3 points why…") count exactly without them.
    if (typeof description === 'string' && description !== '' && indent < 2)
      lines.push(`${pad}// ${description}`);
    lines.push(`${pad}${name}${required.has(name) ? '' : '?'}: ${renderType(property, indent)},`);
  }
  return lines.join('\n');
}

/** The TypeScript type of one schema. */
function renderType(schema: JsonValue, indent: number): string {
  if (!isSchema(schema)) return 'any';
  // `anyOf` is a union (published case: 158 tokens with two object variants). `oneOf` reads
  // the same in harmony's renderer (an extension: no published API count).
  const variants = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  if (variants !== undefined) return variants.map((variant) => renderType(variant, indent)).join(' | ');
  const { type } = schema;
  // `type: ["string", "null"]` becomes a union as in harmony's renderer (an extension).
  if (Array.isArray(type)) {
    return type.map((member) => renderType({ ...schema, type: member }, indent)).join(' | ');
  }
  const enumValues = Array.isArray(schema.enum) && schema.enum.length > 0 ? schema.enum : undefined;
  switch (type) {
    case 'string':
      return enumValues?.map((value) => JSON.stringify(value)).join(' | ') ?? 'string';
    case 'number':
    case 'integer':
      return enumValues?.map((value) => String(value)).join(' | ') ?? 'number';
    case 'boolean':
    case 'null':
      return type;
    case 'object':
      return `{\n${renderProperties(schema, indent + 2)}\n}`;
    case 'array':
      return isSchema(schema.items) ? `${renderType(schema.items, indent)}[]` : 'any[]';
    default:
      // An enum without a type reads as its literals (an extension); anything else is `any`
      // (published case: a property with only a description counts exactly as `any`).
      return enumValues?.map((value) => JSON.stringify(value)).join(' | ') ?? 'any';
  }
}
