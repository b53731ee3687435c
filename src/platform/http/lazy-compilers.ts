import { createRequire } from 'node:module';
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from './validation.ts';

/**
 * Fastify compiles every route's validators (Ajv) and response serializers (fast-json-stringify) as
 * the app starts: several hundred schemas, most of the CPU a start spent, for routes a process may
 * never answer. These compile each one on its first use instead (once; the same functions after).
 */

type Validator = ReturnType<FastifySchemaCompiler<any>> & { errors?: unknown; schemaEnv?: unknown };

export const lazyValidatorCompiler: FastifySchemaCompiler<any> = (route) => {
  let compiled: Validator | null = null;
  const lazy = ((data: unknown, context?: object) => {
    compiled ??= validatorCompiler(route) as Validator;
    const ok = (compiled as (data: unknown, context?: object) => boolean)(data, context);
    lazy.errors = compiled.errors;
    return ok;
  }) as Validator;
  // Fastify hands the parent (so Ajv can coerce a root value) only to a function with a schemaEnv;
  // validatorCompiler's function passes it on only when Ajv's has one.
  lazy.schemaEnv = true;
  return lazy;
};

type Serializer = (data: unknown) => string;
type BuildSerializer = (
  externalSchemas: unknown,
  options: unknown,
) => (route: Record<string, unknown>) => Serializer;

/** Fastify's own serializer factory (its dependency, resolved from Fastify itself), made lazy. */
export function lazySerializerFactory(): BuildSerializer {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const { SerializerSelector } = fromFastify('@fastify/fast-json-stringify-compiler') as {
    SerializerSelector: () => BuildSerializer;
  };
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compilerFor = build(externalSchemas, options);
    return (route) => {
      let compiled: Serializer | null = null;
      return (data) => {
        compiled ??= compilerFor(route);
        return compiled(data);
      };
    };
  };
}
