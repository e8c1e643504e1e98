// A postLead body that passes every rule of CONTRACT §4, with one fixed phone number ((212) 555-1234,
// +12125551234) so unit tests can assert exact values. End-to-end tests use leads.ts (unique numbers).

export type Body = Record<string, unknown>;

export function validLead(overrides: Body = {}): Body {
  return {
    phone_number: "(212) 555-1234",
    customer_name: "Jane Doe",
    state: "NY",
    city: "New York",
    zip: "10001",
    street: "1 Main St",
    certificate_url: "https://cert.example.com/c/123",
    dm_name: "John Doe",
    utility: "Con Edison",
    call_back_url: "https://vendor.example.com/callback",
    mailing_street: "PO Box 1",
    mailing_city: "New York",
    mailing_zip: "10001-0001",
    mailing_state: "NY",
    vendor_campaign_name: "Spring 2025",
    email: "jane.doe@example.com",
    extra_data: { source: "web" },
    ...overrides,
  };
}

/** validLead() without the named fields. */
export function leadWithout(...fields: string[]): Body {
  const body = validLead();
  for (const field of fields) delete body[field];
  return body;
}
