/** The lead shown in the API page: valid under every rule of CONTRACT §4 (tests and the benchmark build on it). */
export const EXAMPLE_LEAD = {
  phone_number: "(212) 555-0123",
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
  vendor_campaign_name: "spring-2026",
  email: "jane@example.com",
} as const;

/** The lead id shown in examples (a UUIDv7, as the service makes them). */
export const EXAMPLE_LEAD_ID = "0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69";
