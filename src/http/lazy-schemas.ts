import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

type Validator = ((data: unknown) => unknown) & { errors?: unknown };

/**
 * Fastify compiles every route's validators and response serializers while it starts: ~270
 * generated functions whose source text, closures and schemas an idle node held for good (4.5 MB
 * of source strings alone, and a second of start-up), though a node serving evaluations calls a
 * handful of them. Here each one is compiled on the first request that needs it and kept from then
 * on (decision 2080). A schema Fastify cannot compile would only show on that first request, so
 * `compileEverySchema` builds them all at once for a test to prove that none fails.
 */
export class LazySchemas {
  static readonly #ofApp = new WeakMap<object, LazySchemas>();
  readonly #pending = new Set<() => unknown>();

  /** The schemas of an app that `belongTo` named (its test compiles them all). */
  static of(app: object): LazySchemas | undefined {
    return LazySchemas.#ofApp.get(app);
  }

  belongTo(app: object): void {
    LazySchemas.#ofApp.set(app, this);
  }

  /** `compile` deferred to the first call of what it makes; the made function is called after. */
  defer<Made extends (...args: never[]) => unknown>(compile: () => Made): () => Made {
    let made: Made | undefined;
    const build = (): Made => {
      if (made === undefined) {
        made = compile();
        this.#pending.delete(build);
      }
      return made;
    };
    this.#pending.add(build);
    return build;
  }

  /** The `schemaController` option: fast-json-stringify, as Fastify's default, one serializer at a time. */
  schemaController(): NonNullable<FastifyServerOptions['schemaController']> {
    const select = SerializerSelector();
    return {
      compilersFactory: {
        buildSerializer: (externalSchemas, options) => {
          const compile = select(externalSchemas, options as never);
          return (route) => {
            const serializer = this.defer(() => compile(route));
            return (data: unknown) => serializer()(data);
          };
        },
      },
    };
  }

  /** `compile` (a validator compiler) deferred per route part; the errors of the last call read as Fastify reads them. */
  validatorCompiler(compile: FastifySchemaCompiler<object>): FastifySchemaCompiler<object> {
    return (route) => {
      const validator = this.defer(() => compile(route) as Validator);
      const validate: Validator = (data) => {
        const made = validator();
        const result = made(data);
        validate.errors = made.errors;
        return result;
      };
      validate.errors = null;
      return validate as ReturnType<FastifySchemaCompiler<object>>;
    };
  }

  /** Compiles what no request has needed yet; answers how many. Throws what a schema's compilation throws. */
  compileEverySchema(): number {
    const pending = [...this.#pending];
    for (const build of pending) build();
    return pending.length;
  }
}
