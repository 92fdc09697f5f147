/** How the CSV reader says where something is (docs/imports-csv.md, "Where"). */

/** 1000 -> "1,000", as a person reads a row number (by hand: Intl's formatter is slow for a value's every `where`). */
export function count(n: number): string {
  const digits = String(n);
  if (n < 1000) return digits;
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

/**
 * A place in the file: its row as a spreadsheet numbers it (the header is row 1, blank lines
 * count), and the column's header text when there is one.
 */
export function rowWhere(row: number, column?: string): string {
  return column === undefined ? `row ${count(row)}` : `row ${count(row)}, column ${column}`;
}
