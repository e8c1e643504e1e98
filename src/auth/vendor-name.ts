/** A vendor name is the Basic-auth username: no colon, no spaces, short. */
export const VENDOR_NAME = /^[A-Za-z0-9._-]{1,64}$/;
