import type { Schema } from './api-route';

/**
 * The part of JSON Schema that the contracts' answer schemas compile to (zod's
 * `toJSONSchema`, at build time: vite/web-contracts.ts). The web app checks answers against
 * that data instead of shipping zod, so the schemas in packages/contracts stay the one source.
 */
export interface AnswerSchema {
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean';
  properties?: Record<string, AnswerSchema>;
  required?: string[];
  items?: AnswerSchema;
  const?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  /** A map's values (zod's record): each key not in `properties` is checked against it. */
  additionalProperties?: AnswerSchema;
}

/** Keywords the check understands; the build refuses a schema that uses any other. */
export const ANSWER_SCHEMA_KEYWORDS = [
  'type',
  'properties',
  'required',
  'items',
  'const',
  'minimum',
  'maximum',
  // Output of a zod object: its unknown keys are dropped, as the check below does; a schema
  // here (a zod record) checks and keeps them.
  'additionalProperties',
  // A zod record's keys: strings, as every JSON key is (dropped at build time).
  'propertyNames',
] as const;

const INVALID = Symbol('invalid');

function check(schema: AnswerSchema, value: unknown): unknown {
  if (schema.const !== undefined && value !== schema.const) return INVALID;
  switch (schema.type) {
    case 'string':
    case 'boolean':
      return typeof value === schema.type ? value : INVALID;
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return INVALID;
      if (schema.type === 'integer' && !Number.isInteger(value)) return INVALID;
      if (schema.minimum !== undefined && value < schema.minimum) return INVALID;
      if (schema.maximum !== undefined && value > schema.maximum) return INVALID;
      return value;
    case 'array': {
      if (!Array.isArray(value)) return INVALID;
      const items: unknown[] = [];
      for (const item of value as unknown[]) {
        const checked = schema.items ? check(schema.items, item) : item;
        if (checked === INVALID) return INVALID;
        items.push(checked);
      }
      return items;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return INVALID;
      const record = value as Record<string, unknown>;
      const result: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        if (!Object.hasOwn(record, key) || record[key] === undefined) {
          if (schema.required?.includes(key)) return INVALID;
          continue;
        }
        const checked = check(property, record[key]);
        if (checked === INVALID) return INVALID;
        result[key] = checked;
      }
      const values = schema.additionalProperties;
      if (values) {
        for (const [key, item] of Object.entries(record)) {
          if (Object.hasOwn(schema.properties ?? {}, key)) continue;
          const checked = check(values, item);
          if (checked === INVALID) return INVALID;
          // Defined as a property: a key such as __proto__ stays data.
          Object.defineProperty(result, key, { value: checked, enumerable: true, writable: true });
        }
      }
      return result;
    }
    default:
      return value;
  }
}

/** A schema with zod's never-throwing `safeParse`, over the JSON Schema of an answer. */
export function answerSchema<T>(schema: AnswerSchema): Schema<T> {
  return {
    safeParse(value) {
      const checked = check(schema, value);
      return checked === INVALID ? { success: false } : { success: true, data: checked as T };
    },
  };
}
