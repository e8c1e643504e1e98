// Who runs an operator command, for its audit entries: the process's user. Bun's userInfo() answers
// $USER (or "unknown" without it), so the user is looked up by the process's uid in /etc/passwd
// first; then $USER's answer; then the uid itself, which still tells one account from another.
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";

/** The name /etc/passwd gives `uid`, or undefined (no such file or line: NSS-only accounts). */
export function passwdName(uid: number, passwd: string): string | undefined {
  for (const line of passwd.split("\n")) {
    const [name, , id] = line.split(":");
    if (name && id !== undefined && Number(id) === uid && id.trim() !== "") return name;
  }
  return undefined;
}

function readPasswd(): string {
  try {
    return readFileSync("/etc/passwd", "utf8");
  } catch {
    return "";
  }
}

/** The process's user name: by uid, else userInfo(), else `uid-N`. */
export function processUserName(): string {
  const uid = process.getuid?.();
  const byUid = uid === undefined ? undefined : passwdName(uid, readPasswd());
  if (byUid) return byUid;
  let named: string | undefined;
  try {
    named = userInfo().username;
  } catch {
    named = undefined;
  }
  if (named && named !== "unknown") return named;
  return uid === undefined ? "unknown" : `uid-${uid}`;
}
