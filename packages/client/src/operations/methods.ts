/** The methods of the operation table as a base class, shared by the engine and the HTTP client. */
import { OPERATION_NAMES, type OperationMethods, type OperationName } from './index.js';

/** What an implementation provides: how to run any operation of the table. */
export interface OperationCaller {
  /** Runs operation `name` with the arguments its method was called with. */
  call<K extends OperationName>(
    name: K,
    args: Parameters<OperationMethods[K]>,
  ): Promise<Awaited<ReturnType<OperationMethods[K]>>>;
}

type Methods = OperationMethods & OperationCaller;

/**
 * A base class with one method per operation, each `this.call(name, args)`. The methods are
 * defined once on its prototype, so an instance (one per request) costs nothing more.
 */
export function operationMethods(): abstract new () => Methods {
  abstract class Operations {
    abstract call(name: OperationName, args: readonly unknown[]): Promise<unknown>;
  }
  for (const name of OPERATION_NAMES) {
    Object.defineProperty(Operations.prototype, name, {
      value: function (this: Operations, ...args: unknown[]) {
        return this.call(name, args);
      },
      writable: true,
      configurable: true,
    });
  }
  return Operations as unknown as abstract new () => Methods;
}
