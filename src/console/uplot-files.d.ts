// uPlot's browser build and stylesheet, and the console's own static files, are imported
// `with { type: "file" }`, which gives the path of the file (inside the compiled binary: an
// embedded one), not a module.
declare module "uplot/dist/*" {
  const path: string;
  export default path;
}
declare module "*.mjs" {
  const path: string;
  export default path;
}
declare module "*.css" {
  const path: string;
  export default path;
}
