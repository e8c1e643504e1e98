// The product's version, from package.json (bundled into the compiled binary at build time).
import packageJson from "../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;
