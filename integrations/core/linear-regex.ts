/**
 * Regular expressions written by users that must run on a door's thread (e.g. a trigger's content
 * filter inside the webhook ingress) use RE2 semantics through re2js, a pure-JavaScript port of
 * RE2: matching time is linear in the text, so no pattern can backtrack catastrophically
 * (`^(a+)+$` against 50,000 × "a" + "!" answers in milliseconds instead of never).
 *
 * RE2 syntax is JavaScript's minus backreferences and lookaround; inline flags `(?i)`, `(?m)`,
 * `(?s)` work natively (as in Go, Java and most tools users copy patterns from).
 * Why re2js: pure JavaScript (no native build, no binary download, works in every process and
 * bundle), widely used, linear time by construction. `re2` needs a native build; `re2-wasm` forces
 * the `u` flag and ships WebAssembly.
 */
import { RE2JS } from "re2js";

export interface LinearRegex {
  test(text: string): boolean;
}

const cache = new Map<string, LinearRegex>();

/** Compiles a user's pattern (cached); throws an Error whose message says what is wrong. */
export function compileLinearRegex(source: string): LinearRegex {
  let re = cache.get(source);
  if (!re) {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(source);
    } catch (e) {
      const msg = (e as Error).message.replace(/^error parsing regexp: /, "");
      const hint = /\(\?[=!<]|\\[1-9]/.test(source)
        ? " (lookahead, lookbehind and backreferences are not supported: patterns run with linear-time RE2 semantics)"
        : "";
      throw new Error(`${msg}${hint}`);
    }
    re = { test: (text) => compiled.test(text) };
    if (cache.size > 1000) cache.clear();
    cache.set(source, re);
  }
  return re;
}
