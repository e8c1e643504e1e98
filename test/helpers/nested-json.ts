// Deeply nested JSON for the tests of the body's nesting limit and of the views of stored JSON.

/** A JSON text nesting exactly `levels` levels: objects and arrays in turn, as a lead's extra_data might. */
export function nestedJson(levels: number): string {
  let text = "1";
  for (let level = levels; level >= 1; level--) text = level % 2 === 1 ? `{"level${level}":${text}}` : `[${text}]`;
  return text;
}

/** `levels` arrays, one inside the other: the most levels a body of 2 × levels bytes can hold. */
export const nestedArrays = (levels: number): string => `${"[".repeat(levels)}${"]".repeat(levels)}`;

const PIECES = ['"', "\\", "[", "]", "{", "}", "a", "é", "😀", "\n", ":", ",", " "];
const randomString = () => Array.from({ length: Math.floor(Math.random() * 6) }, () => PIECES[Math.floor(Math.random() * PIECES.length)]).join("");

/**
 * A random JSON value of at most `levels` levels and about 60 objects and arrays, with strings made
 * of JSON's own punctuation (brackets, quotes, backslashes) and characters outside ASCII.
 */
export function randomJsonValue(levels: number, containers = { left: 60 }): unknown {
  const pick = Math.random();
  if (levels === 0 || containers.left <= 0 || pick < 0.3) return pick < 0.15 ? randomString() : pick < 0.2 ? null : Math.floor(pick * 1000) / 7;
  containers.left--;
  const size = Math.floor(Math.random() * 4);
  if (pick < 0.65) return Array.from({ length: size }, () => randomJsonValue(levels - 1, containers));
  return Object.fromEntries(Array.from({ length: size }, () => [randomString(), randomJsonValue(levels - 1, containers)]));
}
