// autocannon ships no types; the bench script uses a handful of fields.
declare module "autocannon" {
  namespace autocannon {
    type Options = Record<string, unknown>;
  }
  function autocannon(opts: autocannon.Options): Promise<any>;
  export default autocannon;
}
