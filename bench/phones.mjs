// Valid, unique US phone numbers for the benchmark, shared by the Bun runner (seeding, self-check,
// the open-loop generator) and the Node load process. Index i maps to one number of the whole space
// below, in random order: vendors' numbers arrive unordered, so each insert lands on a random page
// of the phone indexes, not at their end (with consecutive numbers the 1M-lead database flattered:
// 1.07× of empty with sorted numbers, 0.78× with random ones, issue 20).

// Every US geographic area code (fixed line or mobile in libphonenumber's full metadata) under
// which the service's validator accepts all exchanges 200-999 and all lines 0000-9999: 358 codes.
// Canada, the Caribbean, toll-free and premium codes are left out, so prePing's toll-free number
// (bodies.ts) is never generated. test/bench/phones.test.ts checks samples against the validator.
const AREA_CODES = [
  201, 202, 203, 205, 206, 207, 208, 209, 210, 212, 213, 214, 215, 216, 217, 218, 219, 220, 223, 224, 225, 227, 228, 229, 231, 234, 235, 239, 240, 248, 251,
  252, 253, 254, 256, 260, 262, 267, 269, 270, 272, 274, 276, 279, 281, 283, 301, 302, 303, 304, 305, 307, 308, 309, 310, 312, 313, 314, 315, 316, 317, 318,
  319, 320, 321, 323, 324, 325, 326, 327, 329, 330, 331, 332, 334, 336, 337, 339, 341, 346, 347, 350, 351, 352, 353, 360, 361, 363, 364, 369, 380, 385, 386,
  401, 402, 404, 405, 406, 407, 408, 409, 410, 412, 413, 414, 415, 417, 419, 423, 424, 425, 430, 432, 434, 435, 440, 442, 443, 445, 447, 448, 458, 463, 464,
  469, 470, 472, 475, 478, 479, 480, 484, 501, 502, 503, 504, 505, 507, 508, 509, 510, 512, 513, 515, 516, 517, 518, 520, 530, 531, 534, 539, 540, 541, 551,
  557, 559, 561, 562, 563, 564, 567, 570, 571, 572, 573, 574, 575, 580, 582, 585, 586, 601, 602, 603, 605, 606, 607, 608, 609, 610, 612, 614, 615, 616, 617,
  618, 619, 620, 623, 626, 628, 629, 630, 631, 636, 640, 641, 645, 646, 650, 651, 656, 657, 659, 660, 661, 662, 667, 669, 678, 680, 681, 682, 686, 689, 701,
  702, 703, 704, 706, 707, 708, 712, 713, 714, 715, 716, 717, 718, 719, 720, 724, 725, 726, 727, 728, 730, 731, 732, 734, 737, 738, 740, 743, 747, 748, 754,
  757, 760, 762, 763, 765, 769, 770, 771, 772, 773, 774, 775, 779, 781, 785, 786, 801, 802, 803, 804, 805, 806, 808, 810, 812, 813, 814, 815, 816, 817, 818,
  820, 821, 826, 828, 830, 831, 832, 835, 838, 839, 840, 843, 845, 847, 848, 850, 854, 856, 857, 858, 859, 860, 862, 863, 864, 865, 870, 872, 878, 901, 903,
  904, 906, 907, 908, 909, 910, 912, 913, 914, 915, 916, 917, 918, 919, 920, 925, 928, 929, 930, 931, 934, 936, 937, 938, 940, 941, 943, 945, 947, 948, 949,
  951, 952, 954, 956, 959, 970, 971, 972, 973, 975, 978, 979, 980, 984, 985, 986, 989,
];
const EXCHANGES = 800; // 200-999: NANP exchanges cannot start with 0 or 1
const LINES = 10_000;

/** How many distinct numbers the generator can produce (358 × 800 × 10,000 = 2,864,000,000). */
export const PHONE_SPACE = AREA_CODES.length * EXCHANGES * LINES;

// A fixed pseudo-random permutation of [0, PHONE_SPACE): a 4-round Feistel network over 32-bit
// values (two 16-bit halves), cycle-walked until the value falls inside the space (2^32 / space =
// 1.5 rounds on average). A permutation, so distinct indexes always give distinct numbers.
const ROUND_KEYS = [0x5bd1e995, 0x1b873593, 0xcc9e2d51, 0x85ebca6b];

function roundFunction(half, key) {
  let h = Math.imul(half ^ key, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  return (h >>> 16) & 0xffff;
}

function feistel(value) {
  let left = value >>> 16;
  let right = value & 0xffff;
  for (const key of ROUND_KEYS) [left, right] = [right, left ^ roundFunction(right, key)];
  return left * 0x10000 + right;
}

/** The index's place in the permuted space: a bijection of [0, PHONE_SPACE). */
function shuffledIndex(index) {
  let value = ((index % PHONE_SPACE) + PHONE_SPACE) % PHONE_SPACE;
  do value = feistel(value);
  while (value >= PHONE_SPACE);
  return value;
}

function parts(index) {
  const i = shuffledIndex(index);
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
