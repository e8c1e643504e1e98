// Types for phones.mjs (plain JS so the Node load process can import it without a build step).
export declare const PHONE_SPACE: number;
export declare function formattedPhone(index: number): string;
export declare function e164Phone(index: number): string;
