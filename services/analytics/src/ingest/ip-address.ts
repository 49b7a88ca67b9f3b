import { isIPv4, isIPv6 } from 'node:net';

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const DOTTED_TAIL = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function maskIPv4(ip: string): string {
  return `${ip.slice(0, ip.lastIndexOf('.'))}.0`;
}

/** The eight 16-bit groups of a valid IPv6 address, an embedded IPv4 tail turned into two. */
function ipv6Groups(ip: string): string[] {
  const dotted = DOTTED_TAIL.exec(ip);
  const hex = dotted
    ? `${dotted[1]}${((Number(dotted[2]) << 8) | Number(dotted[3])).toString(16)}:${(
        (Number(dotted[4]) << 8) |
        Number(dotted[5])
      ).toString(16)}`
    : ip;
  const [head = '', tail] = hex.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros =
    tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right];
}

/**
 * Masks what identifies a person in an address: the last IPv4 octet, and every IPv6 bit after
 * the first 48 (the site prefix). IPv4-mapped IPv6 (how Node reports IPv4 clients on a dual
 * stack socket) is masked as IPv4. What is not an IP address is not stored, since it cannot be
 * masked and might itself identify someone.
 */
export function anonymizeIp(raw: string): string {
  const ip = (raw.split('%', 1)[0] ?? raw).toLowerCase();
  if (isIPv4(ip)) return maskIPv4(ip);
  const mapped = IPV4_MAPPED.exec(ip);
  if (mapped?.[1] && isIPv4(mapped[1])) return `::ffff:${maskIPv4(mapped[1])}`;
  if (!isIPv6(ip)) return 'unknown';
  const groups = ipv6Groups(ip).map((group, index) => (index < 3 ? parseInt(group, 16) : 0));
  return formatIPv6(groups);
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run of zero groups as `::`. */
function formatIPv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < groups.length;) {
    let end = start;
    while (end < groups.length && groups[end] === 0) end += 1;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end === start ? start + 1 : end;
  }
  const text = groups.map((group) => group.toString(16));
  if (bestStart < 0) return text.join(':');
  const left = text.slice(0, bestStart).join(':');
  const right = text.slice(bestStart + bestLength).join(':');
  return `${left}::${right}`;
}
