// Which certificate URLs are TrustedForm certificates, and which only look like one.
import { describe, expect, test } from "bun:test";
import { classifyCertificateUrl, claimsTrustedForm, isTrustedFormUrl, trustedFormCertificateId } from "../../src/certificates/index.ts";

const HEX40 = "eb9fc4dd9bed9ad451a5648946cf4bf09b5bb947";
const MOBILE80 = `${"aB3_-".repeat(16)}`;

describe("isTrustedFormUrl", () => {
  test.each([
    [`https://cert.trustedform.com/${HEX40}`, HEX40],
    [`https://cert.trustedform.com/${MOBILE80}`, MOBILE80],
    ["https://cert.trustedform.com/0.Zm9vYmFyLWZhY2Vib29rLWxlYWQ", "0.Zm9vYmFyLWZhY2Vib29rLWxlYWQ"],
    [`HTTPS://CERT.TrustedForm.com/${HEX40}`, HEX40],
    [`  https://cert.trustedform.com/${HEX40} `, HEX40],
  ])("%s is a certificate, id %s", (url, id) => {
    expect(isTrustedFormUrl(url)).toBe(true);
    expect(trustedFormCertificateId(url)).toBe(id);
  });

  test.each([
    // Lookalike hosts.
    `https://cert.trustedform.com.evil.example/${HEX40}`,
    `https://cert-trustedform.com/${HEX40}`,
    `https://cert.trustedform.co/${HEX40}`,
    `https://xn--cert-trustedfrm-5kb.com/${HEX40}`,
    `https://evil.example/cert.trustedform.com/${HEX40}`,
    `https://cert.trustedform.com@evil.example/${HEX40}`,
    // TrustedForm's host, but not a certificate URL as issued.
    `http://cert.trustedform.com/${HEX40}`,
    `https://cert.trustedform.com./${HEX40}`,
    `https://cert.trustedform.com:8443/${HEX40}`,
    `https://user:pass@cert.trustedform.com/${HEX40}`,
    `https://cert.trustedform.com/${HEX40}?x=1`,
    `https://cert.trustedform.com/${HEX40}#frag`,
    `https://cert.trustedform.com/${HEX40}/`,
    `https://cert.trustedform.com/x/../${HEX40}`,
    `https://cert.trustedform.com/%65${HEX40.slice(1)}`,
    `https://cert.trustedform.com/${HEX40.slice(1)}`,
    `https://cert.trustedform.com/${HEX40}0`,
    "https://cert.trustedform.com/",
    "https://cert.trustedform.com/0.",
    "https://cert.trustedform.com/0.a/b",
    `https://app.trustedform.com/${HEX40}`,
    "not a url",
    "",
  ])("%s is not", (url) => {
    expect(isTrustedFormUrl(url)).toBe(false);
    expect(trustedFormCertificateId(url)).toBeNull();
  });
});

describe("claimsTrustedForm", () => {
  test.each([
    `http://cert.trustedform.com/${HEX40}`,
    `https://cert.trustedform.com./${HEX40}`,
    `https://cert.trustedform.com:8443/${HEX40}`,
    "https://cert.trustedform.com/short",
    "https://app.trustedform.com/certificates/1",
    "https://trustedform.com/",
  ])("%s names TrustedForm's domain (refused as malformed, not checked generically)", (url) => {
    expect(claimsTrustedForm(url)).toBe(true);
  });

  test.each([
    `https://cert.trustedform.com.evil.example/${HEX40}`,
    `https://cert-trustedform.com/${HEX40}`,
    `https://nottrustedform.com/${HEX40}`,
    "https://www.leadid.com/cert/123",
    "garbage",
  ])("%s does not", (url) => {
    expect(claimsTrustedForm(url)).toBe(false);
  });
});

test("classifyCertificateUrl: verify, refuse as malformed, or leave to the generic check", () => {
  expect(classifyCertificateUrl(`https://cert.trustedform.com/${HEX40}`)).toEqual({ kind: "trustedform", id: HEX40 });
  expect(classifyCertificateUrl(`http://cert.trustedform.com/${HEX40}`)).toEqual({ kind: "trustedform_malformed" });
  expect(classifyCertificateUrl(`https://cert.trustedform.com.evil.example/${HEX40}`)).toEqual({ kind: "other" });
  expect(classifyCertificateUrl("https://www.leadid.com/cert/123")).toEqual({ kind: "other" });
});
