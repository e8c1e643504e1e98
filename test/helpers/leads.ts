// Test data: valid leads and phone numbers that no other test uses.

const AREA_CODES = ["201", "212", "305", "312", "415", "512", "617", "646", "702", "713", "718", "805", "917"];
let counter = Math.floor(Math.random() * 1_000_000);

/** A valid NANP number, unique within this test process. */
export function uniquePhone(): string {
  counter++;
  const area = AREA_CODES[counter % AREA_CODES.length];
  const exchange = 200 + (Math.floor(counter / AREA_CODES.length) % 800);
  const line = String(Math.floor(counter / (AREA_CODES.length * 800)) % 10_000).padStart(4, "0");
  return `(${area}) ${exchange}-${line}`;
}

export function validLead(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    phone_number: uniquePhone(),
    customer_name: "Jane Doe",
    state: "NY",
    city: "New York",
    zip: "10001",
    street: "1 Main St",
    certificate_url: "https://cert.example.com/abc",
    dm_name: "Jane Doe",
    utility: "ConEd",
    call_back_url: "https://vendor.example.com/callback",
    mailing_street: "1 Main St",
    mailing_city: "New York",
    mailing_zip: "10001",
    mailing_state: "NY",
    vendor_campaign_name: "spring",
    email: "jane@example.com",
    ...overrides,
  };
}
