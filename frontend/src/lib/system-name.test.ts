import { describe, expect, it } from 'vitest';
import { deviceName, systemName } from './system-name';

describe('deviceName', () => {
  it.each([
    ['desktop', 'Desktop'],
    ['mobile', 'Phone'],
    ['tablet', 'Tablet'],
    ['bot', 'Bot'],
    ['other', 'Other'],
  ])('%s reads %s', (device, name) => {
    expect(deviceName(device)).toBe(name);
  });

  it('leaves a name it does not know (the list\'s "Other" entry) as it is', () => {
    expect(deviceName('Other')).toBe('Other');
    expect(deviceName('smart fridge')).toBe('smart fridge');
  });
});

describe('systemName', () => {
  it.each([
    ['Mac OS', 'macOS'],
    ['Chrome OS', 'ChromeOS'],
    ['Chromium OS', 'ChromeOS'],
    ['Windows', 'Windows'],
    ['Android', 'Android'],
    ['iOS', 'iOS'],
    ['Linux', 'Linux'],
    ['Unknown', 'Unknown'],
  ])('%s reads %s', (platform, name) => {
    expect(systemName(platform)).toBe(name);
  });

  it('says Unknown for an empty name', () => {
    expect(systemName('')).toBe('Unknown');
  });
});
