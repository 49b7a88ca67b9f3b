/** The stats' device kinds as people write them. */
const DEVICE_NAMES: Record<string, string> = {
  desktop: 'Desktop',
  mobile: 'Phone',
  tablet: 'Tablet',
  bot: 'Bot',
  other: 'Other',
};

/**
 * ua-parser-js's system names that people write otherwise (Apple and Google renamed theirs);
 * the rest (Windows, Android, iOS, Linux...) are already as people write them.
 */
const SYSTEM_NAMES: Record<string, string> = {
  'Mac OS': 'macOS',
  'Chrome OS': 'ChromeOS',
  'Chromium OS': 'ChromeOS',
};

/** A device kind (desktop, mobile...) as people write it; any other name as it is. */
export function deviceName(device: string): string {
  return DEVICE_NAMES[device] ?? device;
}

/** An operating system's name as people write it (macOS, not Mac OS). */
export function systemName(platform: string): string {
  if (platform === '') return 'Unknown';
  return SYSTEM_NAMES[platform] ?? platform;
}
