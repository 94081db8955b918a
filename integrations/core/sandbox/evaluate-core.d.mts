import type jsonata from "jsonata";

export declare const CORE_LIMITS: { maxDepth: number; maxOutputBytes: number; maxSourceLength: number };
export declare function compileExpression(source: string, timeoutMs: number): jsonata.Expression;
export declare function describeError(e: unknown, timeoutMs: number): { message: string; stopped: boolean };
/** JSON text of the result, or undefined when the expression yields nothing. Errors carry `stopped` for time limits. */
export declare function evaluateToJson(source: string, bindings: Record<string, unknown>, timeoutMs: number): Promise<string | undefined>;
