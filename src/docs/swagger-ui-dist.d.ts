// swagger-ui-dist ships no types. Its files are imported `with { type: "file" }`, which gives the
// path of the file (inside the compiled binary: an embedded one), not a module.
declare module "swagger-ui-dist/*" {
  const path: string;
  export default path;
}
