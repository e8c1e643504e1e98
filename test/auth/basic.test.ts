// RFC 7617 Basic credentials: Authorization: Basic <base64(name:password)>.
import { describe, expect, test } from "bun:test";
import { parseBasicAuthorization } from "../../src/auth/basic.ts";

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;

describe("parseBasicAuthorization", () => {
  test("reads name and password", () => {
    expect(parseBasicAuthorization(basic("acme:s3cret-pass"))).toEqual({ name: "acme", password: "s3cret-pass" });
  });

  test("the password may contain colons; the name ends at the first one", () => {
    expect(parseBasicAuthorization(basic("acme:a:b:c"))).toEqual({ name: "acme", password: "a:b:c" });
  });

  test("an empty password is parsed (and refused later by verification)", () => {
    expect(parseBasicAuthorization(basic("acme:"))).toEqual({ name: "acme", password: "" });
  });

  test("UTF-8 passwords are decoded", () => {
    expect(parseBasicAuthorization(basic("acme:pässwörd✓"))).toEqual({ name: "acme", password: "pässwörd✓" });
  });

  test.each(["basic", "BASIC", "bAsIc"])("the scheme %p is case-insensitive", (scheme) => {
    const token = Buffer.from("acme:pw123456").toString("base64");
    expect(parseBasicAuthorization(`${scheme} ${token}`)).toEqual({ name: "acme", password: "pw123456" });
  });

  test("extra spaces after the scheme and trailing spaces are tolerated", () => {
    const token = Buffer.from("acme:pw123456").toString("base64");
    expect(parseBasicAuthorization(`Basic   ${token}  `)).toEqual({ name: "acme", password: "pw123456" });
  });

  test.each([
    ["no header", null],
    ["an empty header", ""],
    ["another scheme", `Bearer ${Buffer.from("acme:pw").toString("base64")}`],
    ["the scheme alone", "Basic"],
    ["the scheme and a space", "Basic "],
    ["no space after the scheme", `Basic${Buffer.from("acme:pw").toString("base64")}`],
    ["unencoded credentials", "Basic acme:password"],
    ["characters outside base64", "Basic YWNtZTpw!XNz"],
    ["base64url alphabet", "Basic YWNtZTpw-_8"],
    ["two tokens", `Basic ${Buffer.from("acme:pw").toString("base64")} extra`],
    ["no colon in the credentials", basic("acmepassword")],
    ["an empty name", basic(":password")],
    ["a leading space before the scheme", ` ${basic("acme:pw")}`],
  ])("%s → null", (_what, header) => {
    expect(parseBasicAuthorization(header)).toBeNull();
  });
});
