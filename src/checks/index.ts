// External checks (docs/contract.md §11, docs/checks.md): what intake (intake.ts) and the final
// stage (final-job.ts asks during the hold, stored.ts keeps the answers) use to run a lead's checks
// and judge their answers.
export { type AnswerCache, type CachedAnswer, createAnswerCache, DEFAULT_MAX_ENTRIES } from "./cache.ts";
export { type CompiledCheck, checksInScope, compileCheck, compileChecks, DEFAULT_TIMEOUT_MS, stageChecksCompiler } from "./entry.ts";
export { createFinalChecksJob, type FinalChecksJobDeps } from "./final-job.ts";
export { CHECK_KIND, type CheckAnswerView, checkAnswersView, checkFinding, findingAnswerOf, intakeAnswersOf, resultOfFinding } from "./stored.ts";
export { Cancel } from "./cancel.ts";
export { checkEndpoint, createCheckGuard, MAX_SLOW_PER_CHECK, slowAfterMs } from "./guard.ts";
export { type CheckBody, checkBody, checkMessageId, type SignedRequest, signedCheckRequest } from "./request.ts";
export { type CheckResult, type CheckRunner, type CheckRunnerDeps, createCheckRunner } from "./run.ts";
export { createHttpClient, type HttpClient, type HttpTarget } from "./http-client.ts";
export { type CheckAnswer, MAX_ANSWER_BYTES, MAX_REASON_CHARS, parseAnswer, sendCheck } from "./send.ts";
export { type CheckFacts, type ChecksVerdict, judgeChecks } from "./verdict.ts";
