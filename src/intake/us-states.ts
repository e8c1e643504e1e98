// USPS codes. `state` takes states, DC and territories (including the freely associated states
// USPS serves); `mailing_state` also takes the military "states" AA, AE and AP.

const STATES =
  "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC";
const TERRITORIES = "AS GU MP PR VI FM MH PW";
const MILITARY = "AA AE AP";

export const STATE_CODES: ReadonlySet<string> = new Set(`${STATES} ${TERRITORIES}`.split(" "));
export const MAILING_STATE_CODES: ReadonlySet<string> = new Set(`${STATES} ${TERRITORIES} ${MILITARY}`.split(" "));
