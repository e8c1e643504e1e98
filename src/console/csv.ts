// The console's CSV exports (leads, the suppression list): one cell rule, and a body streamed a page
// of rows at a time, so an export of millions holds one page in memory.

/**
 * A CSV cell. Values are the vendors' own: a cell starting with = + - @ or a control character is
 * prefixed with ' so a spreadsheet shows it as text rather than running it as a formula (OWASP's
 * advice against CSV injection; a phone shows as '+12125550123).
 */
export function csvCell(value: string | number | null): string {
  const text = value === null ? "" : String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * A CSV download: the header line, then each page `nextPage` reads (its lines), until a page is
 * shorter than `pageSize`. Each page is read only when the client has taken the previous one.
 */
export function csvDownload<Row>(filename: string, header: string, pageSize: number, nextPage: () => Promise<Row[]>, line: (row: Row) => string): Response {
  let finished = false;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(encoder.encode(`${header}\r\n`)),
    async pull(controller) {
      if (finished) return controller.close();
      const rows = await nextPage();
      finished = rows.length < pageSize;
      controller.enqueue(encoder.encode(rows.map(line).join("")));
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" },
  });
}
