/** A count header's value (X-Total-Count), or null when there is none or it is not a count. */
export function countOf(header: string | null): number | null {
  return header !== null && /^\d+$/.test(header) ? Number(header) : null;
}
