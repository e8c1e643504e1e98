// Checks the benchmark's own inputs before any load: if these were wrong, the numbers would
// measure the wrong path (e.g. a "postLead accept" run that is really all 400s).
import { checkPhoneNumber } from "../src/intake/phone.ts";
import { validateLead } from "../src/intake/validate.ts";
import { exampleCallbackBase, invalidLead, PHONE_SLOT, prePingBody, validLead, workloadLeadTemplate } from "./bodies.ts";
import { e164Phone, formattedPhone } from "./phones.mjs";
import { CALLBACK_PATHS, CALLBACK_SLOT } from "./workload.mjs";

const SAMPLES_PER_BLOCK = 2_000;

/** Throws if a generated phone or a scenario body would not get the answer the scenario expects. */
export function selfCheck(blockStarts: number[], blockSpan: number): void {
  for (const start of blockStarts) {
    for (let k = 0; k < SAMPLES_PER_BLOCK; k++) {
      const index = start + Math.floor(Math.random() * blockSpan);
      const check = checkPhoneNumber(formattedPhone(index));
      if (!check.ok || check.e164 !== e164Phone(index)) {
        throw new Error(`self-check: generated phone ${formattedPhone(index)} is not valid (${JSON.stringify(check)})`);
      }
    }
  }
  const workloadLead = workloadLeadTemplate
    .replace(PHONE_SLOT, formattedPhone(blockStarts[0]!))
    .replace(CALLBACK_SLOT, exampleCallbackBase + CALLBACK_PATHS.ok);
  for (const lead of [validLead(formattedPhone(blockStarts[0]!)), JSON.parse(workloadLead)]) {
    const valid = validateLead(lead, { allowPrivateCallbacks: false });
    if (!valid.ok) throw new Error(`self-check: the valid lead is invalid: ${valid.errors.join("; ")}`);
  }
  const invalid = validateLead(JSON.parse(invalidLead), { allowPrivateCallbacks: false });
  if (invalid.ok || invalid.errors.length < 5) throw new Error("self-check: the invalid lead should fail several validations");
  if (!checkPhoneNumber(JSON.parse(prePingBody).phone_number).ok) throw new Error("self-check: prePing phone is invalid");
  console.log(`self-check ok: ${blockStarts.length * SAMPLES_PER_BLOCK} generated phones valid, bodies as expected`);
}
