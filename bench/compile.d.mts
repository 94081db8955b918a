/** Types of bench/compile.mjs. */
export function compileBench(file: string, tree?: string): Promise<string>;
