// A static file embedded in the compiled binary and served from it: `import path from "…" with
// { type: "file" }` makes `bun build --compile` carry the file and gives its path ($bunfs/… in the
// binary, node_modules or src/ when run from source), so pages work on a VM without internet access
// (docs/contract.md §9). Used by the API page (docs/assets.ts) and the console (console/assets.ts).

export interface Asset {
  contentType: string;
  /** The file's bytes, read on first use: CLI commands never pay for a 1.7 MB bundle. */
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
  /** The same bytes gzipped (compressed once, on first use), for browsers that accept it. */
  gzipped(): Promise<Uint8Array<ArrayBuffer>>;
}

export function embedded(path: string, contentType: string): Asset {
  let bytes: Promise<Uint8Array<ArrayBuffer>> | undefined;
  let gzipped: Promise<Uint8Array<ArrayBuffer>> | undefined;
  const read = () => (bytes ??= Bun.file(path).bytes());
  return {
    contentType,
    bytes: read,
    gzipped: () => (gzipped ??= read().then((raw) => Bun.gzipSync(raw))),
  };
}

/** The asset's answer, gzipped when the browser accepts it; `cacheControl` as the page's URLs allow. */
export async function serveAsset(asset: Asset, request: Request, cacheControl = "public, max-age=86400"): Promise<Response> {
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const headers: Record<string, string> = { "content-type": asset.contentType, "cache-control": cacheControl, vary: "accept-encoding" };
  if (gzip) headers["content-encoding"] = "gzip";
  return new Response(gzip ? await asset.gzipped() : await asset.bytes(), { headers });
}
