import './mixed-scripts-badge.css';

/**
 * Marks a host whose letters come from scripts not written together (аpple.com with a
 * Cyrillic 'а'): it looks like another site. The host is shown in punycode beside it.
 */
export function MixedScriptsBadge({ host }: { host: string }) {
  return (
    <span
      className="mixed-scripts"
      role="note"
      aria-label={`mixed scripts: the host mixes alphabets that look alike, shown as ${host}`}
      title={`The host mixes alphabets that look alike; its real name is ${host}`}
    >
      mixed scripts
    </span>
  );
}
