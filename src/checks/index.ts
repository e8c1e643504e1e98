// External checks (docs/contract.md §11, docs/checks.md): what intake and the final stage will
// import to run a lead's checks and judge their answers. Not wired in yet (issue 28).
export { type AnswerCache, type CachedAnswer, createAnswerCache, DEFAULT_MAX_ENTRIES } from "./cache.ts";
export { type CompiledCheck, checksInScope, compileCheck, compileChecks, DEFAULT_TIMEOUT_MS } from "./entry.ts";
export { checkEndpoint, createCheckGuard, MAX_SLOW_PER_CHECK, slowAfterMs } from "./guard.ts";
export { type CheckBody, checkBody, checkMessageId, type SignedRequest, signedCheckRequest } from "./request.ts";
export { type CheckResult, type CheckRunner, type CheckRunnerDeps, createCheckRunner } from "./run.ts";
export { type CheckAnswer, type FetchLike, MAX_ANSWER_BYTES, MAX_REASON_CHARS, parseAnswer, sendCheck } from "./send.ts";
export { type CheckFacts, type ChecksVerdict, judgeChecks } from "./verdict.ts";
