// The API page's static files, embedded in the compiled binary: `with { type: "file" }` makes
// `bun build --compile` carry each file and gives its path ($bunfs/... in the binary, node_modules
// when run from source), so the page works on a VM without internet access (CONTRACT §9).
import bundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import cssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import faviconPath from "swagger-ui-dist/favicon-32x32.png" with { type: "file" };
import swaggerUi from "swagger-ui-dist/package.json" with { type: "json" };

export const SWAGGER_UI_VERSION: string = swaggerUi.version;

export interface Asset {
  contentType: string;
  /** The file's bytes, read on first use: CLI commands never pay for the 1.7 MB bundle. */
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
  /** The same bytes gzipped (compressed once, on first use), for browsers that accept it. */
  gzipped(): Promise<Uint8Array<ArrayBuffer>>;
}

function embedded(path: string, contentType: string): Asset {
  let bytes: Promise<Uint8Array<ArrayBuffer>> | undefined;
  let gzipped: Promise<Uint8Array<ArrayBuffer>> | undefined;
  const read = () => (bytes ??= Bun.file(path).bytes());
  return {
    contentType,
    bytes: read,
    gzipped: () => (gzipped ??= read().then((raw) => Bun.gzipSync(raw))),
  };
}

/** Served under /swagger/assets/<name>. */
export const ASSETS: Record<string, Asset> = {
  "swagger-ui-bundle.js": embedded(bundlePath, "text/javascript; charset=utf-8"),
  "swagger-ui.css": embedded(cssPath, "text/css; charset=utf-8"),
  "favicon-32x32.png": embedded(faviconPath, "image/png"),
};
