// 405 and 404 as routes and errors of the app itself (http/unmatched.ts): a path's other methods
// are ALL routes that Elysia's router tries last, and a scope (the vendor authentication) runs
// before them, as before the path's own routes.
import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import { EnvelopeError, toResponse } from "../../src/http/envelope.ts";
import { methodNotAllowed, notFound } from "../../src/http/unmatched.ts";

const answered = (error: unknown) => (error instanceof EnvelopeError ? toResponse(error.reply("success_bit")) : new Response("unexpected", { status: 599 }));
const refuseStrangers = (request: Request) => {
  if (request.headers.get("authorization") !== "yes") throw new EnvelopeError(401, ["Unauthorized"]);
};
const scope = new Elysia().derive({ as: "scoped" }, ({ request }) => (refuseStrangers(request), {}));

function app() {
  const routes = new Elysia()
    .onError(({ error }) => answered(error))
    .get("/thing", () => "got")
    .post("/thing", () => "posted");
  return routes.use(methodNotAllowed(routes.routes, scope));
}

const send = (method: string, authorization?: string) =>
  app().handle(new Request("http://test.local/thing", { method, headers: authorization ? { authorization } : {} }));

test("a path's own methods still answer; any other is 405 with Allow listing them", async () => {
  expect(await (await send("GET", "yes")).text()).toBe("got");
  expect(await (await send("POST", "yes")).text()).toBe("posted");
  const refused = await send("DELETE", "yes");
  expect([refused.status, refused.headers.get("allow"), await refused.json()]).toEqual([
    405,
    "GET, POST",
    { success_bit: false, message: [{ error: "Method Not Allowed" }] },
  ]);
});

test("the scope runs before the 405: a stranger learns only 401", async () => {
  const refused = await send("DELETE");
  expect([refused.status, refused.headers.get("allow")]).toEqual([401, null]);
});

test("an unknown path is 404, under /v1 only once authenticated", async () => {
  const outcome = (path: string, authorization?: string) =>
    notFound(refuseStrangers, new Request(`http://test.local${path}`, { headers: authorization ? { authorization } : {} }), path).catch(
      (error: EnvelopeError) => error.status,
    );
  expect(await outcome("/nope")).toBe(404);
  expect(await outcome("/v1/nope")).toBe(401);
  expect(await outcome("/v1/nope", "yes")).toBe(404);
});

test("the 405 routes stay out of the OpenAPI document", () => {
  for (const route of methodNotAllowed([{ path: "/thing", method: "GET" }]).routes) expect(route.hooks.detail).toEqual({ hide: true });
});
