// The mock vendor callback receiver's public surface, for tests, the benchmark and the CLI (cli/mock-receiver.ts).
export { startMockReceiver, isLoopbackHost, LoopbackError, type MockReceiver, type MockReceiverOptions } from "./receiver.ts";
export { BehaviourError, CONTROL_PREFIX, type Answer, type Behaviour } from "./behaviour.ts";
export type { RecordedCallback, WaitOptions } from "./recorder.ts";
export { SecretError, type SignatureCheck } from "./signature.ts";
export { CERTIFICATE_SCENARIOS, type CertificateBehaviour, type CertificateScenario } from "./trustedform-answer.ts";
export { TRUSTEDFORM_PREFIX, type CertificateRequest } from "./trustedform.ts";
export { CHECK_PREFIX, type CheckPlay } from "./checks.ts";
