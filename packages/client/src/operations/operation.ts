/**
 * The vocabulary of the operation table: what one operation of the Satchel interface declares,
 * once, and what every frontend derives from it — the engine's authorisation and audit entry
 * (engine/local-satchel.ts), the HTTP client (remote/), the REST route and its OpenAPI
 * description (@satchel/api), and the MCP tools' argument schemas (@satchel/mcp).
 *
 * An operation is a method `name(...args, options?)`: positional arguments, each named and
 * given a schema, then an optional options object. The names are the wire names: an argument
 * called `path` is the `path` field of a JSON body or query string, `:ws` in a route is the
 * `workspace` argument. This folder imports only zod and types, so a browser can load it.
 */
import { z } from 'zod';
import type { GlobalAction, WorkspaceAction } from './actions.js';

/** One positional argument: its wire name and its schema. */
export type ArgSpec = readonly [name: string, schema: z.ZodType];

/** The workspace an operation acts in; `:ws` in a route. */
export const WORKSPACE_ARG = ['workspace', z.string()] as const;

type ArgTypes<A extends readonly ArgSpec[]> = { -readonly [K in keyof A]: z.input<A[K][1]> };

/** The method an operation is: its arguments, then its options (optional unless required). */
export type OperationMethod<
  A extends readonly ArgSpec[],
  O extends z.ZodObject | undefined,
  R extends z.ZodType | undefined,
  Required extends boolean,
> = O extends z.ZodObject
  ? Required extends true
    ? (...args: [...ArgTypes<A>, z.input<O>]) => Promise<Result<R>>
    : (...args: [...ArgTypes<A>, (z.input<O> | undefined)?]) => Promise<Result<R>>
  : (...args: ArgTypes<A>) => Promise<Result<R>>;

// An operation that returns nothing is a `Promise<void>` method, as any other async function.
// biome-ignore lint/suspicious/noConfusingVoidType: the result type of a method
type Result<R extends z.ZodType | undefined> = R extends z.ZodType ? z.output<R> : void;

/**
 * Who may call: an action inside the operation's workspace (with the paths it changes, each
 * checked against the key's path prefixes), a global action, or `self` — anyone authenticated,
 * the operation itself deciding what the caller may see. A function picks one by the arguments.
 */
export type Access<Args extends readonly unknown[]> =
  | {
      readonly workspace: WorkspaceAction;
      readonly paths?: (args: Args) => readonly unknown[];
    }
  | { readonly global: GlobalAction }
  | { readonly self: true }
  | ((args: Args) => Access<Args>);

/** Type of a query parameter, as it is parsed from the URL (INVALID_INPUT when malformed). */
export type QueryType = 'string' | 'integer' | 'number' | 'boolean';

/**
 * How an operation travels over HTTP (CONTRACT.md, REST API). Path parameters (`:name`; `:ws` is
 * the `workspace` argument, `*` the `path` argument) and `query` fields come from the URL;
 * every other argument and option is a field of the JSON body (methods with a body). Options
 * named `session` and `lockToken` also travel as `Satchel-Session` and `Satchel-Lock-Token`
 * headers, which win over the body.
 */
export interface HttpBinding<Out = never> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below `/v1`, as a Hono pattern: `/workspaces/:ws/locks/:id/renew`. */
  readonly path: string;
  /** Arguments or options read from the query string, with their types. */
  readonly query?: Readonly<Record<string, QueryType>>;
  /** 201 for creations; 204 for operations that return nothing. Default 200. */
  readonly status?: 201 | 204;
  /** The result is an array that travels as one page: `{items, nextCursor: null}`. */
  readonly list?: true;
  /**
   * The result's validators: the API answers with its ETag (`"<seq>"`) and, for a file version
   * (`modifiedAt` given), Last-Modified and Satchel-Version.
   */
  readonly validators?: (result: Out) => { readonly seq: number; readonly modifiedAt?: string };
  /** Where the created resource lives (`Location`), below the server's URL. */
  readonly location?: (result: Out) => string;
}

/** Everything that is said about one operation, in one place. */
export interface OperationSpec<
  A extends readonly ArgSpec[] = readonly ArgSpec[],
  O extends z.ZodObject | undefined = z.ZodObject | undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
  Required extends boolean = boolean,
> {
  /** The method name, also the audit entry's action and the OpenAPI operationId. */
  readonly name: string;
  /** One line for the OpenAPI document and the reference docs. */
  readonly summary: string;
  /** Groups operations in the OpenAPI document. */
  readonly tag: string;
  readonly args: A;
  readonly options?: O;
  /** The options object must be given (it carries required fields). */
  readonly optionsRequired?: Required;
  /** The result's schema; undefined for operations that return nothing. */
  readonly result?: R;
  readonly access: Access<Parameters<OperationMethod<A, O, R, Required>>>;
  /** Whether it changes the workspace (its audit entry commits with the change). */
  readonly mutates: boolean;
  /**
   * The operation's workspace — checked by `access`, named by the audit entry — when it is not
   * the `workspace` argument.
   */
  readonly workspace?: (args: Parameters<OperationMethod<A, O, R, Required>>) => unknown;
  /** The path the audit entry names. Default: none. */
  readonly auditPath?: (args: Parameters<OperationMethod<A, O, R, Required>>) => unknown;
  /**
   * The REST binding, or why there is none derived: the route and client are written by hand
   * where the body is a byte stream or a stream of events.
   */
  readonly http: HttpBinding<Result<R>> | { readonly custom: string };
}

/** The method type of a declared operation. */
export type MethodOf<S> =
  S extends OperationSpec<infer A, infer O, infer R, infer Q> ? OperationMethod<A, O, R, Q> : never;

/** Declares an operation; the identity function, there for inference. */
export function operation<
  const A extends readonly ArgSpec[],
  O extends z.ZodObject | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
  Required extends boolean = false,
>(spec: OperationSpec<A, O, R, Required>): OperationSpec<A, O, R, Required> {
  return spec;
}

/** The options argument of a call (the one after the positional arguments), if given. */
export function optionsOf(spec: OperationSpec, args: readonly unknown[]): unknown {
  return spec.options === undefined ? undefined : args[spec.args.length];
}
