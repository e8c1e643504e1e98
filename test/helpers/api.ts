// A vendor's two intake calls against a running service (its base URL), as the tests send them.
import { uniquePhone, validLead } from "./leads.ts";
import { post, type Answer } from "./server.ts";

/** POST /v1/prePing with `body` (a fresh number by default), sent with `authorization`. */
export function prePing(server: { url: string }, authorization: string, body: unknown = { phone_number: uniquePhone() }): Promise<Answer> {
  return post(`${server.url}/v1/prePing`, body, { authorization });
}

/** POST /v1/postLead with `body` (a valid lead with a fresh number by default), sent with `authorization` and `headers`. */
export function postLead(server: { url: string }, authorization: string, body: unknown = validLead(), headers: Record<string, string> = {}): Promise<Answer> {
  return post(`${server.url}/v1/postLead`, body, { authorization, ...headers });
}

/** postLead, then the new lead's id; fails unless the lead was accepted (200). */
export async function postedLead(server: { url: string }, authorization: string, body: unknown = validLead()): Promise<string> {
  const answer = await postLead(server, authorization, body);
  if (answer.status !== 200) throw new Error(`postLead answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.lead_id;
}
