// The last step of a site's handler (the console's, the portal's): a failure is answered with a page
// (503 while the database is away, else 500 and a log line), and every answer gets the security headers.
import { isDatabaseUnavailable } from "../backend/index.ts";
import { errorText, type Logger } from "../log/index.ts";
import { SECURITY_HEADERS } from "./page.ts";

/** `answer` guarded: `refused` makes the failure's page, `event` names the log line of an unexpected one. */
export function guarded(
  answer: (request: Request, url: URL) => Promise<Response>,
  refused: (status: number, text: string) => Response,
  log: Logger,
  event: string,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    let response: Response;
    try {
      response = await answer(request, url);
    } catch (error) {
      const unavailable = isDatabaseUnavailable(error);
      if (!unavailable) log.error(event, { method: request.method, path: url.pathname, error: errorText(error) });
      response = refused(
        unavailable ? 503 : 500,
        unavailable ? "The database is unavailable; try again shortly." : "Something failed; it is in the service's log.",
      );
    }
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
    return response;
  };
}
