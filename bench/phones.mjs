// Valid, unique US phone numbers for the benchmark, shared by the Bun runner (seeding, self-check)
// and the Node load process. Index i maps to one number: area code × exchange 200-999 × line
// 0000-9999. Real area codes are used because libphonenumber-js rejects unassigned ones; exchanges
// start at 200 because NANP exchanges cannot start with 0 or 1.

// Sorted, so consecutive indexes give increasing E.164 strings (cheap B-tree appends when seeding).
const AREA_CODES = [
  201, 202, 206, 212, 213, 214, 215, 303, 305, 310, 312, 404, 415, 503, 512, 602, 617, 646, 702, 713, 718, 805, 818, 917,
];
const EXCHANGES = 800;
const LINES = 10_000;

/** How many distinct numbers the generator can produce (24 × 800 × 10,000 = 192,000,000). */
export const PHONE_SPACE = AREA_CODES.length * EXCHANGES * LINES;

function parts(index) {
  const i = ((index % PHONE_SPACE) + PHONE_SPACE) % PHONE_SPACE;
  const area = AREA_CODES[Math.floor(i / (EXCHANGES * LINES))];
  const exchange = 200 + (Math.floor(i / LINES) % EXCHANGES);
  const line = String(i % LINES).padStart(4, "0");
  return { area, exchange, line };
}

/** "(212) 555-0123": the form a vendor would send, so the server does the real parsing work. */
export function formattedPhone(index) {
  const { area, exchange, line } = parts(index);
  return `(${area}) ${exchange}-${line}`;
}

/** "+12125550123": the normalised form the server stores and keys claims on. */
export function e164Phone(index) {
  const { area, exchange, line } = parts(index);
  return `+1${area}${exchange}${line}`;
}
